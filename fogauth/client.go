package fogauth

import (
	"fmt"

	"github.com/tickwire/tickwire/protocol"
)

// ClientCounters are a client's diagnostics (the seed's custom map:
// entities_tracked, updates_received, ...).
type ClientCounters struct {
	EntitiesTracked int
	UpdatesReceived uint64 // StateUpdates applied
	BytesReceived   uint64 // StateUpdate bytes applied
	Malformed       uint64 // messages that failed to decode
	OrdersSent      uint64
	Rejections      uint64 // orders refused: the sum of the Rejections' counts
	LastRejection   Rejection
	Stale           uint64 // StateUpdates older than one applied: ignored
	World           WorldStats
}

// Client is the pure core of a fog-authoritative client: it decodes
// StateUpdates into its PartialWorld, acknowledges each one, and encodes
// the player's orders. It never reads a clock or touches a socket; a shell
// feeds it messages with Receive and sends what Flush returns.
type Client struct {
	world   *PartialWorld
	deltas  []Delta
	acks    []pendingAck
	ackIDs  []PartID
	flushes uint64
	orders  []protocol.TimestampedOrder
	ticks   []uint64 // ticks seen, not yet polled
	out     [][]byte
	pkts    [][]byte
	buf     []byte
	c       ClientCounters
	rejects []Rejection // received, not yet taken (at most maxRejectionLog)

	end        MatchEnd
	ended      bool
	consistent bool
}

// End returns the MatchEnd, once received, and whether the client's
// partial world then equalled the server's truth of its view.
func (c *Client) End() (end MatchEnd, consistent, ok bool) {
	return c.end, c.consistent, c.ended
}

// pendingAck is an applied StateUpdate and the first Flush that names it.
type pendingAck struct {
	id    PartID
	flush uint64
}

// NewClient returns a client for player (0 for a spectator).
func NewClient(player protocol.PlayerID) *Client {
	return &Client{world: NewPartialWorld(player)}
}

// World is the client's partial world.
func (c *Client) World() *PartialWorld { return c.world }

// Receive handles one message from the server: a StateUpdate or a
// Rejection. A StateUpdate is validated whole before any delta is applied.
func (c *Client) Receive(data []byte) error {
	if len(data) == 0 {
		c.c.Malformed++
		return ErrTruncated
	}
	switch data[0] {
	case TypeStateUpdate:
		u, err := ParseStateUpdate(data, c.deltas)
		c.deltas = u.Deltas
		if err == nil && u.Tick < c.world.Tick() {
			// Older than a tick already applied: its news are stale. (The
			// channel may reorder; StateUpdates of one tick carry
			// different entities and may be applied in any order.)
			c.c.Stale++
			return nil
		}
		if err == nil {
			err = c.world.Apply(&u)
		}
		if err != nil {
			c.c.Malformed++
			return err
		}
		if len(u.Deltas) > 0 {
			c.acks = append(c.acks, pendingAck{id: PartID{Tick: u.Tick, First: u.Deltas[0].Entity.ID}, flush: c.flushes + 1})
		}
		if n := len(c.ticks); n == 0 || c.ticks[n-1] < u.Tick {
			c.ticks = append(c.ticks, u.Tick)
		}
		c.c.UpdatesReceived++
		c.c.BytesReceived += uint64(len(data))
		return nil
	case TypeMatchEnd:
		m, err := ParseMatchEnd(data)
		if err != nil {
			c.c.Malformed++
			return err
		}
		c.end, c.ended = m, true
		c.consistent = uint32(c.world.Len()) == m.Entities && ViewHash(c.world.Entities()) == m.ViewHash
		return nil
	case TypeRejection:
		r, err := ParseRejection(data)
		if err != nil {
			c.c.Malformed++
			return err
		}
		c.c.Rejections += uint64(r.Count)
		c.c.LastRejection = r
		if len(c.rejects) < maxRejectionLog {
			c.rejects = append(c.rejects, r)
		}
		return nil
	}
	c.c.Malformed++
	return fmt.Errorf("%w: 0x%02x", ErrMessageType, data[0])
}

// maxRejectionLog bounds the Rejections kept for TakeRejections; later
// ones are only counted until they are taken.
const maxRejectionLog = 1024

// TakeRejections appends to dst the Rejections received since the last
// call (at most the first 1,024 of them) and forgets them.
func (c *Client) TakeRejections(dst []Rejection) []Rejection {
	dst = append(dst, c.rejects...)
	c.rejects = c.rejects[:0]
	return dst
}

// SubmitOrder queues an order for the next Flush. The server validates and
// applies it; the client never applies it locally.
func (c *Client) SubmitOrder(o protocol.TimestampedOrder) {
	c.orders = append(c.orders, o)
}

// PollTick returns the next tick whose StateUpdate arrived, in the shape
// of lockstep.NetworkModel: the tick carries no orders (their effect
// arrives as deltas).
func (c *Client) PollTick() (protocol.TickOrders, bool) {
	if len(c.ticks) == 0 {
		return protocol.TickOrders{}, false
	}
	t := c.ticks[0]
	c.ticks = append(c.ticks[:0], c.ticks[1:]...)
	return protocol.TickOrders{Tick: t}, true
}

// Flush returns what to send: orders, the queued orders in the native TLV
// codec for the reliable-ordered lane (nil without orders), and ack, an
// Ack for the unreliable-sequenced lane (nil when there is nothing to
// acknowledge). An Ack names every StateUpdate applied during the last
// AckRedundancy flushes, so a lost Ack costs nothing unless that many are
// lost in a row (and then only a resend: the server keeps sending what it
// does not know arrived). The slices are valid until the next Flush.
func (c *Client) Flush() (orders [][]byte, ack []byte, err error) {
	c.out = c.out[:0]
	if len(c.orders) > 0 {
		c.pkts, err = nativeCodec.Encode(c.pkts[:0], []protocol.TickOrders{{Tick: c.world.Tick(), Orders: c.orders}})
		for _, p := range c.pkts {
			c.out = append(c.out, AppendOrders(nil, p))
		}
		c.c.OrdersSent += uint64(len(c.orders))
		clear(c.orders)
		c.orders = c.orders[:0]
	}
	c.flushes++
	keep := 0
	for _, a := range c.acks {
		if c.flushes-a.flush < AckRedundancy {
			c.acks[keep] = a
			keep++
		}
	}
	c.acks = c.acks[:keep]
	if n := len(c.acks); n > maxAcksPerMessage {
		c.acks = append(c.acks[:0], c.acks[n-maxAcksPerMessage:]...)
	}
	c.ackIDs = c.ackIDs[:0]
	for _, a := range c.acks {
		c.ackIDs = append(c.ackIDs, a.id)
	}
	if len(c.ackIDs) > 0 {
		c.buf = AppendAck(c.buf[:0], c.ackIDs)
		ack = c.buf
	}
	return c.out, ack, err
}

// AckRedundancy is how many consecutive Acks name each applied StateUpdate.
const AckRedundancy = 4

// maxAcksPerMessage keeps an Ack within a 1,200-byte datagram.
const maxAcksPerMessage = 80

// Counters returns the client's diagnostics.
func (c *Client) Counters() ClientCounters {
	d := c.c
	d.EntitiesTracked = c.world.Len()
	d.World = c.world.Stats()
	return d
}
