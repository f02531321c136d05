package room

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/transport"
)

// The backpressure policy, the same for every model (ARCHITECTURE.md,
// "The room driver"). A seat is backed up while
//   - its backlog holds messages and none of them left: a reliable lane
//     refused one (transport.ErrBackpressure) and the driver keeps it, and
//     what follows on that lane, in order, retrying every RetryInterval
//     (a reliable message is never dropped: the peer would wait for it
//     forever); or
//   - its peer names none of the datagrams sent to it as received
//     (transport.Conn.Heard, checked every CheckInterval): a client that
//     stopped reading, whose unreliable lanes would otherwise take the
//     game's messages forever without a word.
//
// A seat backed up for SendGrace, or whose backlog holds more than
// MaxBacklog bytes (it drains, but slower than the game fills it),
// cannot keep up with the game: the driver disconnects
// it with ErrTooSlow's text as the reason its peer reads, tells the
// model (an Inbound with Err ErrTooSlow), counts it (Counters.TooSlow)
// and logs it, at most one line per second per model (the others are
// counted in the next line). The other seats play on.
const (
	// SendGrace is how long a seat may stay backed up: five seconds of a
	// game its client did not take is a client that cannot play (half the
	// transport's idle timeout; at 2 s a client that only acknowledges,
	// over a link losing 10% each way, was sometimes dropped).
	SendGrace = 5 * time.Second
	// MaxBacklog bounds the bytes waiting in one seat's backlog.
	MaxBacklog = 1 << 20
	// RetryInterval is how often a backlog is retried.
	RetryInterval = 10 * time.Millisecond
	// CheckInterval is how often the driver looks at each seat's
	// acknowledgements.
	CheckInterval = SendGrace / 8
	// slowLogInterval spaces the log lines about dropped seats.
	slowLogInterval = time.Second
)

// ErrTooSlow is the end of a seat the driver disconnected because its
// connection did not take the room's messages; its text begins the
// reason the client reads.
var ErrTooSlow = errors.New("too slow: the connection did not take the server's messages in time")

// SendCause classifies a message the server could not send.
type SendCause uint8

// Causes of a failed send.
const (
	// SendBackpressure: the peer's reliable lane was full; the message
	// waits in the seat's backlog (see SendGrace).
	SendBackpressure SendCause = iota
	// SendTooLarge: the message exceeds its lane's size limit.
	SendTooLarge
	// SendClosed: the connection had already ended.
	SendClosed
	// SendEncode: the message did not encode (counted by the model).
	SendEncode
	// SendOther: any other transport error.
	SendOther
	// NumSendCauses is the number of causes.
	NumSendCauses
)

var sendCauseNames = [NumSendCauses]string{"backpressure", "too_large", "closed", "encode", "other"}

// String is the cause's metric label.
func (c SendCause) String() string {
	if c < NumSendCauses {
		return sendCauseNames[c]
	}
	return "cause?"
}

// Cause classifies err, returned by transport.Conn.Send.
func Cause(err error) SendCause {
	switch {
	case errors.Is(err, transport.ErrBackpressure):
		return SendBackpressure
	case errors.Is(err, transport.ErrMessageTooLarge):
		return SendTooLarge
	case errors.Is(err, transport.ErrClosed), errors.Is(err, transport.ErrPeerClosed),
		errors.Is(err, transport.ErrTimeout), errors.Is(err, transport.ErrNotConnected),
		errors.Is(err, transport.ErrMemoryBudget):
		return SendClosed
	}
	return SendOther
}

// Counters are the figures of the rooms of one model, updated by their
// drivers and read by the server's statistics; the server gives every
// room of a model the same (Params.Counters). Safe for concurrent use.
type Counters struct {
	// MessagesOut counts the messages queued on a connection.
	MessagesOut atomic.Uint64
	// SendErrors counts the messages a send refused, by cause; a
	// message refused for backpressure is counted once.
	SendErrors [NumSendCauses]atomic.Uint64
	// TooSlow counts the seats disconnected for backpressure.
	TooSlow atomic.Uint64

	lastLog  atomic.Int64  // server clock of the last slow-seat line, plus one; 0: none yet
	unlogged atomic.Uint64 // seats dropped since that line
}

// logSlow reports whether a dropped seat may be logged at now (at most
// one line per slowLogInterval), and how many were dropped unlogged
// since the last line.
func (c *Counters) logSlow(now time.Duration) (ok bool, unlogged uint64) {
	last := c.lastLog.Load()
	if last != 0 && now+1-time.Duration(last) < slowLogInterval {
		c.unlogged.Add(1)
		return false, 0
	}
	if !c.lastLog.CompareAndSwap(last, int64(now+1)) {
		c.unlogged.Add(1)
		return false, 0
	}
	return true, c.unlogged.Swap(0)
}

// backlog is what a seat's reliable lanes refused, waiting in order.
type backlog struct {
	queue []pending
	bytes int
	since time.Duration // when the backlog last became non-empty or last sent a message
	lanes map[transport.ChannelID]int
}

type pending struct {
	lane transport.ChannelID
	data []byte
}

// holds reports whether messages of lane wait: a new one must queue
// behind them.
func (b *backlog) holds(lane transport.ChannelID) bool { return b.lanes[lane] > 0 }

// push queues a copy of data for lane at now.
func (b *backlog) push(now time.Duration, lane transport.ChannelID, data []byte) {
	if len(b.queue) == 0 {
		b.since = now
	}
	if b.lanes == nil {
		b.lanes = make(map[transport.ChannelID]int)
	}
	b.queue = append(b.queue, pending{lane, append([]byte(nil), data...)})
	b.bytes += len(data)
	b.lanes[lane]++
}

// drain sends what waits, in order, until a lane refuses; it returns
// the messages sent and the first error other than backpressure.
func (b *backlog) drain(now time.Duration, c *transport.Conn) (sent int, err error) {
	defer func() {
		if sent > 0 {
			b.since = now
		}
	}()
	for len(b.queue) > 0 {
		p := b.queue[0]
		if err := c.Send(p.lane, p.data); err != nil {
			if errors.Is(err, transport.ErrBackpressure) {
				err = nil
			}
			return sent, err
		}
		sent++
		b.bytes -= len(p.data)
		b.lanes[p.lane]--
		b.queue[0] = pending{}
		b.queue = b.queue[1:]
	}
	b.queue = nil
	return sent, nil
}

// reset drops everything.
func (b *backlog) reset() { *b = backlog{} }

// pressure is a seat's state under the policy.
type pressure struct {
	backlog      backlog
	asked, heard uint64        // the connection's Heard at the last check
	stalled      bool          // datagrams asked the peer for an acknowledgement and it named none since
	since        time.Duration // when the stall began: the first check that saw an unanswered ask
}

// check looks at what c's peer acknowledged at now. A stall runs from
// the first datagram asking for an acknowledgement after the peer's last
// one, until the peer names a newer datagram.
func (p *pressure) check(now time.Duration, c *transport.Conn) {
	asked, heard := c.Heard()
	switch {
	case heard != p.heard:
		p.heard, p.stalled = heard, false
	case asked != p.asked && !p.stalled:
		p.stalled, p.since = true, now
	}
	p.asked = asked
}

// overdue reports whether the seat broke the policy at now.
func (p *pressure) overdue(now time.Duration) bool {
	b := &p.backlog
	return (len(b.queue) > 0 && (now-b.since >= SendGrace || b.bytes > MaxBacklog)) ||
		(p.stalled && now-p.since >= SendGrace)
}

// reason is the reason a dropped seat's peer reads.
func (p *pressure) reason(now time.Duration) string {
	if b := &p.backlog; len(b.queue) > 0 {
		return fmt.Sprintf("%v (%d bytes waiting for %v)", ErrTooSlow, b.bytes, (now - b.since).Round(time.Millisecond))
	}
	return fmt.Sprintf("%v (nothing acknowledged for %v)", ErrTooSlow, (now - p.since).Round(time.Millisecond))
}
