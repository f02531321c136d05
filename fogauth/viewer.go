package fogauth

import (
	"errors"

	"github.com/tickwire/tickwire/protocol"
)

// viewer is the room's state for one client connection.
type viewer struct {
	id     ClientID
	player protocol.PlayerID // 0 = spectator
	view   view

	// StateUpdates sent and not yet acknowledged, oldest first; their
	// deltas are items[part.start:part.end], and hints[k] is where
	// items[k]'s entry was in the view when it was sent (see view.entry).
	parts     []sentPart
	partsHead int
	items     []Delta
	hints     []int32

	srtt8 uint64 // smoothed ticks from sending a StateUpdate to its acknowledgement, ×8

	ordersThisTick int
	tail           []protocol.TickOrders // last decoded order group, for continuations
	orderBuf       []protocol.TimestampedOrder
	converged      bool
	ended          bool       // sent its MatchEnd: nothing more goes to it
	rejected       rejections // refused orders, told at the next Simulate
	stats          ClientStats
}

type sentPart struct {
	id         PartID
	start, end int
}

// unacked is how many sent StateUpdates wait for acknowledgement.
func (c *viewer) unacked() int { return len(c.parts) - c.partsHead }

// acknowledge applies an acknowledged StateUpdate to the client's view.
// Parts sent before an acknowledged one are dropped: one of an older tick
// will never be applied now (the client drops StateUpdates older than a
// tick it applied), and one of the same tick may still arrive (the State
// lane reorders) or may have been applied with its acknowledgement lost;
// either way what it carried becomes uncertain and is sent again, which
// costs a resend and never a wrong view. An unknown part (already
// dropped, or never sent) is ignored.
func (c *viewer) acknowledge(p PartID, tick uint64) {
	for i := c.partsHead; i < len(c.parts); i++ {
		if c.parts[i].id != p {
			continue
		}
		for c.partsHead < i {
			c.expire()
		}
		sp := c.parts[i]
		for j := sp.start; j < sp.end; j++ {
			c.view.acknowledge(&c.items[j], c.hints[j], p.Tick)
		}
		c.partsHead = i + 1
		sample := (tick - p.Tick) * 8
		if c.srtt8 == 0 {
			c.srtt8 = sample
		} else {
			c.srtt8 = c.srtt8 - c.srtt8/8 + sample/8
		}
		c.compact()
		c.stats.Acked++
		return
	}
}

// expire drops the oldest unacknowledged part, making what it carried
// uncertain.
func (c *viewer) expire() {
	sp := c.parts[c.partsHead]
	for j := sp.start; j < sp.end; j++ {
		c.view.forget(&c.items[j], c.hints[j])
	}
	c.partsHead++
	c.stats.Expired++
}

// expireOld drops the parts that waited more than twice the resend time
// for their acknowledgement.
func (c *viewer) expireOld(tick uint64) {
	limit := 2 * c.resendTicks()
	for c.partsHead < len(c.parts) && c.parts[c.partsHead].id.Tick+limit <= tick {
		c.expire()
	}
	c.compact()
}

// compact reclaims the storage of dropped parts.
func (c *viewer) compact() {
	if c.partsHead == len(c.parts) {
		c.parts, c.items, c.hints, c.partsHead = c.parts[:0], c.items[:0], c.hints[:0], 0
		return
	}
	if c.partsHead < len(c.parts)/2 {
		return
	}
	first := c.parts[c.partsHead].start
	n := copy(c.items, c.items[first:])
	c.items = c.items[:n]
	c.hints = c.hints[:copy(c.hints, c.hints[first:])]
	m := copy(c.parts, c.parts[c.partsHead:])
	c.parts = c.parts[:m]
	for i := range c.parts {
		c.parts[i].start -= first
		c.parts[i].end -= first
	}
	c.partsHead = 0
}

// resendTicks is how long a sent delta is left to be acknowledged before
// it is sent again: one and a half smoothed acknowledgement times, plus
// one tick; three ticks before the first acknowledgement.
func (c *viewer) resendTicks() uint64 {
	if c.srtt8 == 0 {
		return 3
	}
	return min((c.srtt8*3/2+7)/8+1, 60)
}

// decodeOrders decodes one Orders packet; a packet continuing the previous
// one's last tick yields only the orders it adds. The tick a packet is
// stamped with means nothing to the room (orders are for the next tick),
// so a packet that does not continue the previous one is decoded on its
// own: any number of packets may carry the same stamp.
func (c *viewer) decodeOrders(packet []byte) ([]protocol.TimestampedOrder, error) {
	res, err := nativeCodec.Decode(nil, packet)
	cont := errors.Is(err, protocol.ErrBadContinuation) && len(c.tail) == 1
	skip := 0
	if cont {
		skip = len(c.tail[0].Orders) // the decoder stores the continued group back into c.tail
		res, err = nativeCodec.Decode(c.tail, packet)
	}
	if err != nil {
		c.tail = c.tail[:0]
		return nil, err
	}
	orders := c.orderBuf[:0]
	for i := range res {
		o := res[i].Orders
		if i == 0 && cont {
			o = o[skip:]
		}
		orders = append(orders, o...)
	}
	if len(res) > 0 {
		c.tail = append(c.tail[:0], res[len(res)-1])
	}
	c.orderBuf = orders
	return orders, nil
}

var nativeCodec protocol.NativeCodec
