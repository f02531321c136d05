package transport

import (
	"encoding/binary"
	"math"
	"time"
)

// Parity of small urgent messages: a group of k consecutive messages of
// one reliable channel, each small enough (parityMaxSize), is followed by
// m parity frames of a systematic Reed–Solomon code over GF(2^8) (Cauchy
// coefficients), each in a later datagram than the group's messages, so
// that the receiver rebuilds any m of the k messages lost on the way
// without waiting a round trip for their retransmission. A symbol is a
// message's 2-byte length followed by its payload, zero-padded to the
// group's longest. A parity frame (frame flag bit 6) carries:
//
//	channel, flags, sequence of the group's first message, [length]
//	(k-1)<<4 | (m-1)<<2 | j (1 byte), symbol (2 + longest payload)
//
// The adaptive policy (redundancy.go) picks k and m.
const (
	frameParity   = 1 << 6
	parityMaxSize = 256 // largest payload protected
	parityMaxK    = 16
	parityMaxM    = 4
	parityHdrLen  = 1
)

// parityFrame is the decoded payload of a parity frame.
type parityFrame struct {
	k, m, j int
	symbol  []byte
}

// parseParity decodes and checks a parity frame's payload; maxSize is the
// channel's largest message.
func parseParity(p []byte, maxSize int) (parityFrame, bool) {
	if len(p) < parityHdrLen+2 {
		return parityFrame{}, false
	}
	pf := parityFrame{k: int(p[0]>>4) + 1, m: int(p[0]>>2&3) + 1, j: int(p[0] & 3), symbol: p[parityHdrLen:]}
	ok := pf.j < pf.m && len(pf.symbol) <= 2+min(maxSize, parityMaxSize)
	return pf, ok
}

// paritySend is the sending side of a channel's parity: the open group and
// the parity frames due.
type paritySend struct {
	k, m   int // of the open group; k = 0: none open
	first  uint16
	n      int
	data   [parityMaxK][]byte // payloads of the open group (not copied: outMsg data lives until acked)
	gen    uint64             // datagram of the group's newest message
	due    []dueParity
	lastAt time.Time     // the latest datagram with a protected message
	gap    time.Duration // smoothed interval between such datagrams
	// perDg is the smoothed number of protected messages a datagram
	// carries (several when the application sends faster than the driver
	// writes): a lost datagram erases that many messages of a group.
	perDg   float64
	lastGen uint64
	inGen   int // protected messages in datagram lastGen
}

// dueParity is a parity frame waiting for a datagram after gen: it rides
// in the next datagram that carries frames, or goes alone at alone.
type dueParity struct {
	seq     uint16
	gen     uint64
	alone   time.Time
	payload []byte
}

// eligible reports whether message m may join a parity group.
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

// add puts the first transmission of m, in the datagram of generation
// gen, into the open group (opening one of k, m if none is), and closes
// the group when it is full, making its parity frames due.
func (p *paritySend) add(m *outMsg, gen uint64, k, rows int, now time.Time, wait time.Duration) {
	if p.k > 0 && m.seq != p.first+uint16(p.n) {
		p.k, p.n = 0, 0 // a message left out broke the run: drop the group
	}
	if p.k == 0 {
		if k == 0 {
			return
		}
		p.k, p.m, p.first, p.n = k, rows, m.seq, 0
	}
	p.data[p.n] = m.data
	p.n++
	p.gen = gen
	if p.n == p.k {
		p.close(now, wait)
	}
}

// close computes the parity rows of the full group. Row j goes alone
// (j+1)·wait after now if no datagram took it first, so that with
// messages every wait each row rides in one of the next datagrams.
func (p *paritySend) close(now time.Time, wait time.Duration) {
	long := 0
	for _, d := range p.data[:p.k] {
		long = max(long, len(d))
	}
	for j := range p.m {
		payload := make([]byte, parityHdrLen+2+long)
		payload[0] = byte(p.k-1)<<4 | byte(p.m-1)<<2 | byte(j)
		sym := payload[parityHdrLen:]
		var tmp [2 + parityMaxSize]byte
		for i, d := range p.data[:p.k] {
			binary.BigEndian.PutUint16(tmp[:], uint16(len(d)))
			n := copy(tmp[2:], d)
			clear(tmp[2+n : 2+long])
			gfMulAdd(sym, tmp[:2+long], cauchy(j, i))
		}
		p.due = append(p.due, dueParity{seq: p.first, gen: p.gen, alone: now.Add(time.Duration(j+1) * wait), payload: payload})
	}
	p.data = [parityMaxK][]byte{}
	p.k, p.n = 0, 0
}

// next returns the parity frame due for the datagram of generation gen,
// if any: one per datagram, never in the datagram of the group's own
// messages, and in a datagram of its own only from its alone time on
// (ride says the datagram carries other frames).
func (p *paritySend) next(gen uint64, ride bool, now time.Time) (dueParity, bool) {
	if len(p.due) == 0 || p.due[0].gen == gen || (!ride && now.Before(p.due[0].alone)) {
		return dueParity{}, false
	}
	return p.due[0], true
}

func (p *paritySend) pop() {
	p.due[0] = dueParity{}
	p.due = p.due[1:]
	if len(p.due) == 0 {
		p.due = nil
	}
}

// protect adds the first transmission of m, a message of a protected
// channel, to the channel's parity group, planning a new group from the
// measured loss, RTT and message rate when none is open.
func (s *Session) protect(c *sendChannel, m *outMsg, now time.Time) {
	p := &c.par
	if !p.eligible(m) {
		p.k, p.n = 0, 0 // compressed or large: the run of protected messages breaks
		return
	}
	p.noteRate(s.dgGen, now)
	k, rows := 0, 0
	if p.k == 0 {
		// Plan in datagrams, the unit of loss, then in messages.
		k, rows = parityPlan(s.redundancyLoss(), s.rtt.srtt(), p.gap, c.cfg.Reliability.sequenced())
		if per := max(p.perDg, 1); k > 0 {
			k = min(parityMaxK, max(1, int(float64(k)*per+0.5)))
			rows = min(parityMaxM, int(math.Ceil(float64(rows)*per)))
		}
	}
	p.add(m, s.dgGen, k, rows, now, min(p.gap, s.rtt.srtt()/8))
}

// appendParity appends the parity frames due, one per channel, that fit
// in the datagram, and returns how many it appended and their size. A
// parity frame waits up to a message interval for a datagram to ride in
// (ride: this one carries other frames), which saves it a header.
func (s *Session) appendParity(dst []byte, start int, last *int, ride bool, now time.Time) ([]byte, int, int) {
	n, size := 0, 0
	for _, c := range s.send {
		p, ok := c.par.next(s.dgGen, ride, now)
		if !ok {
			continue
		}
		f := frame{channel: c.cfg.ID, flags: frameParity, seq: p.seq, payload: p.payload}
		if f.size() > s.set.mtu-(len(dst)-start) {
			continue
		}
		*last = len(dst)
		dst = appendFrame(dst, &f)
		c.par.pop()
		s.pacer.spendFrame(c.cfg.Priority, f.size())
		size += f.size()
		n++
	}
	return dst, n, size
}
