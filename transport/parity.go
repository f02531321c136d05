package transport

import (
	"encoding/binary"
	"time"
)

// Repair of small urgent messages, a sliding-window code: every R first
// transmissions of a protected channel, a repair frame follows in the next
// datagram, covering the channel's messages sent in earlier datagrams and
// not yet acknowledged (at most repairWindow of them, consecutive). It is
// a random-looking linear combination over GF(2^8) of their symbols (a
// message's 2-byte length and payload, zero-padded to the window's
// longest) with Cauchy coefficients, so that the receiver rebuilds as
// many lost messages as it holds repairs covering them, by elimination,
// without waiting a round trip. A receiver that rebuilt messages reports
// how far it has received the channel, so that the sender does not
// retransmit what was rebuilt. The frames (frame flag bit 6) carry:
//
//	repair: channel, flags, sequence of the window's first message, [length]
//	        n-1 (1 byte, < 64), repair id (1 byte), symbol (2 + longest payload)
//	report: channel, flags, the receiver's next expected sequence, [length]
//	        0x80 (1 byte)
//
// The adaptive policy (redundancy.go) picks R.
const (
	frameParity   = 1 << 6
	parityMaxSize = 256 // largest payload protected
	repairWindow  = 64  // messages a repair covers at most (the receiver's cache)
	repairHdrLen  = 2
	repairReport  = 0x80 // first payload byte of a report
)

// repairFrame is the decoded payload of a repair frame.
type repairFrame struct {
	n      int  // messages covered, from the frame's sequence on
	id     byte // the repair's number, which picks its coefficients
	symbol []byte
}

// parseRepair decodes and checks a repair or report payload; maxSize is
// the channel's largest message. report says it is a report.
func parseRepair(p []byte, maxSize int) (rf repairFrame, report, ok bool) {
	if len(p) == 1 && p[0] == repairReport {
		return repairFrame{}, true, true
	}
	if len(p) < repairHdrLen+2 || p[0] >= repairWindow {
		return repairFrame{}, false, false
	}
	rf = repairFrame{n: int(p[0]) + 1, id: p[1], symbol: p[repairHdrLen:]}
	return rf, false, len(rf.symbol) <= 2+min(maxSize, parityMaxSize)
}

// repairCoef is the coefficient of message seq in repair id: a Cauchy
// matrix entry 1/(x_id + y_seq) with x = 128 + id mod 128 and y = seq mod
// 128, so that any square choice of up to 128 repairs and of messages
// within a window of 128 is invertible.
func repairCoef(id byte, seq uint16) byte {
	return gfInv(0x80 | id&0x7F ^ byte(seq&0x7F))
}

// addSymbol adds c times message d's symbol to acc (at least as long).
func addSymbol(acc []byte, d []byte, c byte) {
	var tmp [2 + parityMaxSize]byte
	binary.BigEndian.PutUint16(tmp[:], uint16(len(d)))
	n := copy(tmp[2:], d)
	gfMulAdd(acc, tmp[:2+n], c)
}

// repairPayload encodes the repair id over the window msgs (consecutive
// sequences from first).
func repairPayload(first uint16, msgs [][]byte, id byte) []byte {
	long := 0
	for _, d := range msgs {
		long = max(long, len(d))
	}
	p := make([]byte, repairHdrLen+2+long)
	p[0], p[1] = byte(len(msgs)-1), id
	for i, d := range msgs {
		addSymbol(p[repairHdrLen:], d, repairCoef(id, first+uint16(i)))
	}
	return p
}

// paritySend is the sending side of a channel's repairs: the window of
// protected messages sent and the repair due.
type paritySend struct {
	win    []winMsg // consecutive first transmissions, oldest first
	since  int      // messages of win not covered by a repair yet
	every  int      // the plan's R
	due    time.Time
	nextID byte
	lastAt time.Time     // the latest datagram with a protected message
	gap    time.Duration // smoothed interval between such datagrams
	// perDg is the smoothed number of protected messages a datagram
	// carries (several when the application sends faster than the driver
	// writes): a lost datagram erases that many messages.
	perDg   float64
	lastGen uint64
	inGen   int // protected messages in datagram lastGen
}

// winMsg is a message of the window: its payload is kept here, as the
// receiver keeps it, after an acknowledgement frees the message's.
type winMsg struct {
	msg  *outMsg
	data []byte
	gen  uint64 // datagram of its first transmission
}

// eligible reports whether message m may be covered by repairs.
func (p *paritySend) eligible(m *outMsg) bool {
	return m.flags&(frameFragment|frameCompressed) == 0 && len(m.data) <= parityMaxSize
}

// noteRate updates the interval between datagrams carrying protected
// messages and how many each carries, for a message in datagram gen.
func (p *paritySend) noteRate(gen uint64, now time.Time) {
	if gen == p.lastGen && p.inGen > 0 {
		p.inGen++
		return
	}
	if p.inGen > 0 {
		p.perDg += (float64(p.inGen) - p.perDg) / 8
	}
	p.lastGen, p.inGen = gen, 1
	if !p.lastAt.IsZero() {
		d := now.Sub(p.lastAt)
		if p.gap == 0 {
			p.gap = d
		} else {
			p.gap += (d - p.gap) / 8
		}
	}
	p.lastAt = now
}

// add puts the first transmission of m, in datagram gen, into the window.
// every is the plan's R (0: no repairs); a repair is due when R messages
// are uncovered, or R message intervals after the first of them (the
// stream paused).
func (p *paritySend) add(m *outMsg, gen uint64, every int, now time.Time) {
	if n := len(p.win); n > 0 && m.seq != p.win[n-1].msg.seq+1 {
		p.reset()
	}
	if every == 0 {
		p.reset()
		return
	}
	p.trim()
	if len(p.win) >= 2*repairWindow { // a long stall: keep what a repair may cover
		n := copy(p.win, p.win[len(p.win)-repairWindow:])
		clear(p.win[n:])
		p.win = p.win[:n]
	}
	p.win = append(p.win, winMsg{msg: m, data: m.data, gen: gen})
	p.every = every
	p.since++
	if p.since == 1 {
		p.schedule(now)
	}
	if p.since > every { // R messages and this one, which the repair does not cover
		p.due = now
	}
}

// schedule makes a repair due R message intervals from now, for a stream
// that pauses before R messages.
func (p *paritySend) schedule(now time.Time) {
	p.due = now.Add(p.span())
}

// span is the time R messages take to leave.
func (p *paritySend) span() time.Duration {
	return time.Duration(float64(p.every) * float64(max(p.gap, time.Millisecond)) / max(p.perDg, 1))
}

func (p *paritySend) reset() {
	clear(p.win)
	p.win, p.since, p.due = p.win[:0], 0, time.Time{}
}

// trim drops the acknowledged messages from the front of the window.
func (p *paritySend) trim() {
	i := 0
	for i < len(p.win) && (p.win[i].msg.dropped || p.win[i].msg.acked == p.win[i].msg.count) {
		i++
	}
	if i > 0 {
		clear(p.win[:i])
		p.win = p.win[i:]
	}
}

// next returns the repair for the datagram of generation gen when one is
// due: covering the window's messages sent before gen, in a datagram
// carrying other frames (ride) or, from wait after it was due, alone.
func (p *paritySend) next(gen uint64, ride bool, now time.Time, wait time.Duration) (uint16, []byte, bool) {
	if p.since == 0 || now.Before(p.due) || (!ride && now.Before(p.due.Add(wait))) {
		return 0, nil, false
	}
	p.trim()
	if p.since = min(p.since, len(p.win)); p.since == 0 {
		p.due = time.Time{} // all acknowledged: nothing to repair
		return 0, nil, false
	}
	end := len(p.win)
	for end > 0 && p.win[end-1].gen == gen {
		end--
	}
	if end == 0 {
		return 0, nil, false
	}
	start := max(0, end-repairWindow)
	msgs := make([][]byte, 0, end-start)
	for _, w := range p.win[start:end] {
		msgs = append(msgs, w.data)
	}
	first := p.win[start].msg.seq
	payload := repairPayload(first, msgs, p.nextID)
	p.nextID++
	p.since = len(p.win) - end
	p.due = time.Time{}
	if p.since > 0 { // the messages of this very datagram wait for the next
		p.schedule(now)
	}
	return first, payload, true
}

// protect adds the first transmission of m, a message of a protected
// channel, to the channel's repair window.
func (s *Session) protect(c *sendChannel, m *outMsg, now time.Time) {
	p := &c.par
	if !p.eligible(m) {
		p.reset() // compressed or large: the run of protected messages breaks
		return
	}
	p.noteRate(s.dgGen, now)
	every := repairPlan(s.redundancyLoss(), s.rtt.srtt(), p.gap, max(p.perDg, 1))
	p.add(m, s.dgGen, every, now)
}

// repairWait is how long a due repair waits for a datagram to ride in.
func (s *Session) repairWait(c *sendChannel) time.Duration {
	return min(c.par.gap, s.rtt.srtt()/8)
}

// appendParity appends the repairs due and the reports of rebuilt
// messages (one frame per channel and datagram; a report goes first) that
// fit in the datagram, and returns how many it appended and their size. A repair waits up to a message interval for a
// datagram to ride in (ride: this one carries other frames), which saves
// it a header.
func (s *Session) appendParity(dst []byte, start int, last *int, ride bool, now time.Time) ([]byte, int, int) {
	n, size := 0, 0
	for i, c := range s.send {
		var f frame
		if rp := s.recv[i].par; rp != nil && rp.reports > 0 && s.set.mtu-(len(dst)-start) >= frameHeaderLen+1 {
			f = frame{channel: c.cfg.ID, flags: frameParity, seq: s.recv[i].base, payload: []byte{repairReport}}
			rp.reports--
		} else if c.par.since > 0 && s.set.mtu-(len(dst)-start)-frameHeaderLen-repairHdrLen-2 >= longest(c.par.win) {
			seq, payload, ok := c.par.next(s.dgGen, ride, now, s.repairWait(c))
			if !ok {
				continue
			}
			f = frame{channel: c.cfg.ID, flags: frameParity, seq: seq, payload: payload}
		} else {
			continue
		}
		*last = len(dst)
		dst = appendFrame(dst, &f)
		s.pacer.spendFrame(c.cfg.Priority, f.size())
		size += f.size()
		n++
	}
	return dst, n, size
}

func longest(win []winMsg) int {
	n := 0
	for _, w := range win {
		n = max(n, len(w.data))
	}
	return n
}

// onReport takes the peer's report that it holds every message of the
// channel before next: those are acknowledged (it rebuilt some that the
// sender would otherwise retransmit). A report outside what was sent is
// ignored.
func (c *sendChannel) onReport(next uint16) {
	if c.unacked.len() == 0 {
		return
	}
	front := c.unacked.front().seq
	if uint16(next-front) > uint16(c.nextSeq-front) {
		return
	}
	for c.unacked.len() > 0 {
		m := c.unacked.front()
		if uint16(m.seq-front) >= uint16(next-front) || m.next < m.count || m.dropped {
			return
		}
		for i := range m.count {
			c.onAcked(fragRef{m, i})
		}
	}
}

// repairHold is how long the retransmission of lost message m waits for
// the receiver's report that a repair rebuilt it: the repair follows m by
// up to R message intervals, and its datagram may arrive a jitter later
// than those whose acknowledgements declared m lost. Zero for a message
// no repair covers.
func (s *Session) repairHold(c *sendChannel, m *outMsg) time.Duration {
	p := &c.par
	if p.every == 0 || len(p.win) == 0 || uint16(m.seq-p.win[0].msg.seq) >= uint16(len(p.win)) {
		return 0
	}
	return p.span() + s.rtt.srtt()/4
}
