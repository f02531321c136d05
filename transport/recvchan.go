package transport

// reliableWindow is how far (in messages) a sender may run ahead of the
// oldest message its peer has not received on a reliable channel, and so
// the size of the receiver's duplicate filter and reorder buffer.
const reliableWindow = 4096

// recvChannel is the receiving half of a channel.
type recvChannel struct {
	cfg *chanSettings
	// Reliable channels: base is the oldest sequence not yet received;
	// seen has a bit for each received sequence in [base, base+window).
	base uint16
	seen *[reliableWindow / 64]uint64 // allocated with the first message
	// Ordered channels: messages received ahead of base.
	held      map[uint16][]byte
	heldBytes int
	// Sequenced unreliable channels: the newest delivered sequence.
	last    uint16
	hasLast bool
	stats   ChannelStats
	// par holds what rebuilding lost messages from parity needs, on
	// channels that protect their messages (see ChannelConfig.Redundancy).
	par *parityRecv
}

func (c *recvChannel) bit(seq uint16) (*uint64, uint64) {
	if c.seen == nil {
		c.seen = new([reliableWindow / 64]uint64)
	}
	i := seq % reliableWindow
	return &c.seen[i/64], 1 << (i % 64)
}

// fresh reports whether a frame with sequence seq may still be useful: not a
// duplicate of a received reliable message, not outside the window, not
// older than the newest sequenced message.
func (c *recvChannel) fresh(seq uint16) bool {
	switch c.cfg.Reliability {
	case Reliable, ReliableOrdered:
		d := uint16(seq - c.base)
		if d >= reliableWindow {
			return false // already received (behind base) or beyond the window
		}
		w, m := c.bit(seq)
		return *w&m == 0
	case UnreliableSequenced:
		return !c.hasLast || seqDiff16(seq, c.last) > 0
	}
	return true
}

// accept takes a complete message that passed fresh and calls deliver for
// each message that becomes deliverable, in order.
func (c *recvChannel) accept(seq uint16, data []byte, deliver func([]byte)) {
	switch c.cfg.Reliability {
	case Unreliable:
		deliver(data)
	case UnreliableSequenced:
		c.last, c.hasLast = seq, true
		deliver(data)
	case Reliable:
		c.mark(seq)
		deliver(data)
		c.advance(nil)
	case ReliableOrdered:
		c.mark(seq)
		if seq != c.base {
			if c.held == nil {
				c.held = make(map[uint16][]byte)
			}
			c.held[seq] = data
			c.heldBytes += len(data)
			return
		}
		deliver(data)
		c.advance(deliver)
	}
}

func (c *recvChannel) mark(seq uint16) {
	w, m := c.bit(seq)
	*w |= m
}

// advance moves base past received sequences, delivering held messages.
func (c *recvChannel) advance(deliver func([]byte)) {
	for {
		w, m := c.bit(c.base)
		if *w&m == 0 {
			return
		}
		*w &^= m
		if data, ok := c.held[c.base]; ok && deliver != nil {
			delete(c.held, c.base)
			c.heldBytes -= len(data)
			deliver(data)
		}
		c.base++
	}
}
