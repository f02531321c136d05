package transport

import "time"

// Fragment states of an outgoing message.
const (
	fragUnsent uint8 = iota
	fragSent
	fragQueued // lost and waiting for retransmission
	fragAcked
)

// outMsg is a message on its way out.
type outMsg struct {
	seq     uint16
	flags   uint8  // frame flags common to all fragments
	data    []byte // payload on the wire (compressed or not); nil while compressing
	size    int    // original size, for accounting
	count   int    // fragments; 1 when not fragmented
	next    int    // next fragment of the first transmission
	state   []uint8
	state1  [1]uint8 // storage of state for unfragmented messages
	acked   int
	dropped bool // removed from its channel before completion
	pending bool // being compressed on the worker pool
	// heldUntil delays the retransmission of a lost message that a
	// repair may rebuild until the receiver's report could say so.
	heldUntil time.Time
	fragSize  int
	owner     *sendChannel
}

// fragRef names one fragment of one message.
type fragRef struct {
	msg *outMsg
	idx int
}

// setPayload fixes the wire payload of m and splits it into fragments.
func (m *outMsg) setPayload(data []byte, compressed bool, s *settings) {
	m.data = data
	if compressed {
		m.flags |= frameCompressed
	}
	m.count = 1
	if len(data) > s.maxFramed {
		m.flags |= frameFragment
		m.fragSize = s.fragPayload
		m.count = (len(data) + m.fragSize - 1) / m.fragSize
	}
	if m.count == 1 {
		m.state = m.state1[:]
	} else {
		m.state = make([]uint8, m.count)
	}
}

// frame builds the frame of fragment idx of m on channel ch.
func (m *outMsg) frame(ch ChannelID, idx int) frame {
	f := frame{channel: ch, flags: m.flags, seq: m.seq, payload: m.data}
	if m.flags&frameFragment != 0 {
		lo := idx * m.fragSize
		hi := min(lo+m.fragSize, len(m.data))
		f.index, f.count, f.total = uint16(idx), uint16(m.count), uint32(len(m.data))
		f.payload = m.data[lo:hi]
		if idx == m.count-1 {
			f.flags |= frameLastFragment
		}
	}
	return f
}

// fragWireSize is the encoded size of fragment idx.
func (m *outMsg) fragWireSize(idx int) int {
	if m.flags&frameFragment == 0 {
		return frameSize(m.flags, len(m.data))
	}
	lo := idx * m.fragSize
	return frameSize(m.flags, min(m.fragSize, len(m.data)-lo))
}

// sendChannel is the sending half of a channel.
type sendChannel struct {
	cfg      *chanSettings
	nextSeq  uint16
	queue    deque[*outMsg] // waiting for (the rest of) their first transmission
	retx     deque[fragRef] // lost fragments, sent before new data
	repeat   deque[repeatRef]
	unacked  deque[*outMsg] // reliable messages not yet fully acknowledged, by seq
	queued   int            // bytes in queue
	unackedN int            // bytes in unacked
	deficit  int            // deficit round robin credit
	skipGen  uint64         // datagram in which the head did not fit
	par      paritySend
	stats    ChannelStats
}

func (c *sendChannel) reliable() bool { return c.cfg.Reliability.reliable() }

// admit applies the channel's limits to a new message of n bytes. Unreliable
// channels make room by dropping their oldest queued messages; reliable
// channels refuse with ErrBackpressure.
func (c *sendChannel) admit(n int) error {
	cfg := c.cfg
	full := func() bool {
		return (cfg.MaxQueuedMessages > 0 && c.queue.len() >= cfg.MaxQueuedMessages) ||
			c.queued+n > cfg.BufferLimit
	}
	if !c.reliable() {
		for c.queue.len() > 0 && full() {
			m := c.queue.pop()
			m.dropped = true
			c.queued -= m.size
			c.stats.Dropped++
		}
		return nil
	}
	if c.unacked.len() == 0 {
		return nil // one message always fits an empty channel
	}
	if full() || c.unackedN+n > cfg.MaxUnackedBytes {
		return ErrBackpressure
	}
	return nil
}

// enqueue appends a new message.
func (c *sendChannel) enqueue(m *outMsg) {
	m.owner = c
	c.queue.push(m)
	c.queued += m.size
	if c.reliable() {
		c.unacked.push(m)
		c.unackedN += m.size
	}
	c.stats.MessagesSent++
	c.stats.BytesSent += uint64(m.size)
}

// peek returns the next fragment the channel would send: a retransmission
// first (unless held at now), then new data if allowed by fresh (flush
// state) and by the receiver's reliable window.
func (c *sendChannel) peek(fresh bool, now time.Time) (fragRef, bool) {
	for c.retx.len() > 0 {
		r := c.retx.front()
		if r.msg.state[r.idx] == fragQueued && !r.msg.dropped {
			if now.Before(r.msg.heldUntil) {
				break
			}
			return r, true
		}
		c.retx.pop()
	}
	if !fresh || c.queue.len() == 0 {
		return fragRef{}, false
	}
	m := c.queue.front()
	if m.pending {
		return fragRef{}, false
	}
	if c.reliable() && uint16(m.seq-c.unacked.front().seq) >= reliableWindow {
		return fragRef{}, false
	}
	return fragRef{m, m.next}, true
}

// take consumes the fragment returned by peek for the datagram of
// generation gen. copies allows redundant copies in later datagrams.
func (c *sendChannel) take(r fragRef, gen uint64, copies bool) {
	m := r.msg
	if m.state[r.idx] == fragQueued {
		c.retx.pop()
		c.stats.Retransmits++
		if copies && m.fragWireSize(r.idx) <= repeatMaxSize && !c.cfg.protected() {
			c.repeat.push(repeatRef{ref: r, gen: gen, left: repeatCopies})
		}
	} else {
		m.next++
		if m.next == m.count {
			c.queue.pop()
			c.queued -= m.size
		}
	}
	m.state[r.idx] = fragSent
}

// onAcked marks a fragment delivered and releases fully acknowledged
// messages from the front of the channel.
func (c *sendChannel) onAcked(r fragRef) {
	m := r.msg
	if m.state[r.idx] == fragAcked || m.dropped {
		return
	}
	m.state[r.idx] = fragAcked
	m.acked++
	if m.acked < m.count {
		return
	}
	m.data = nil
	for c.unacked.len() > 0 && c.unacked.front().acked == c.unacked.front().count {
		done := c.unacked.pop()
		c.unackedN -= done.size
	}
}

// onLost queues a fragment for retransmission, held until hold.
func (c *sendChannel) onLost(r fragRef, hold time.Time) {
	if r.msg.state[r.idx] == fragSent && !r.msg.dropped {
		r.msg.state[r.idx] = fragQueued
		r.msg.heldUntil = hold
		c.retx.push(r)
	}
}

// heldUntil returns when the held retransmission at the head of the
// channel's queue may go, or zero.
func (c *sendChannel) heldUntil() time.Time {
	if c.retx.len() == 0 {
		return time.Time{}
	}
	r := c.retx.front()
	if r.msg.state[r.idx] != fragQueued || r.msg.dropped {
		return time.Time{}
	}
	return r.msg.heldUntil
}

// resend queues every unacknowledged sent fragment again.
func (c *sendChannel) resend() {
	for _, m := range c.unacked.items() {
		for i := range m.next {
			c.onLost(fragRef{m, i}, time.Time{})
		}
	}
}

// Retransmissions of small frames are repeated: repeatMaxSize bounds the
// frames concerned (the small messages for which another round trip costs
// most in latency and a copy least in bytes), and repeatCopies is how many
// copies follow the retransmission, one per later datagram. With two, a
// retransmission is lost only if three datagrams are (1 in 8,000 at 5%
// independent loss), instead of 1 in 400 with one copy.
// Small messages of protected channels get parity from their first
// transmission on instead (parity.go; seed 001's frame data resilience).
const (
	repeatMaxSize = 256
	repeatCopies  = 2
)

// repeatRef is a retransmitted fragment due for left more copies, in
// datagrams after the one of generation gen.
type repeatRef struct {
	ref  fragRef
	gen  uint64
	left int
}

// drop discards everything the channel holds, keeping its configuration
// and statistics.
func (c *sendChannel) drop() {
	for _, m := range c.unacked.items() {
		m.dropped = true
	}
	for _, m := range c.queue.items() {
		m.dropped = true
	}
	*c = sendChannel{cfg: c.cfg, stats: c.stats}
}

// idle reports whether the channel has nothing queued or unacknowledged.
func (c *sendChannel) idle() bool {
	return c.queue.len() == 0 && c.unacked.len() == 0 && c.retx.len() == 0
}
