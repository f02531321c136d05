package transport

import (
	"encoding/binary"
	"time"
)

// Receiving side of parity (see parity.go): a channel that protects its
// messages keeps the payloads of its latest small messages and the parity
// rows of a few groups, and rebuilds a group's missing messages as soon as
// it holds as many rows as messages are missing.
const (
	parityCache  = 64 // messages remembered, by sequence
	parityGroups = 8  // groups whose rows wait for a decode
)

type parityRecv struct {
	cache  [parityCache]cachedMsg
	groups []rxGroup
	bytes  int // payload and row bytes held
}

type cachedMsg struct {
	seq  uint16
	ok   bool
	data []byte
}

type rxGroup struct {
	first        uint16
	k, m, symLen int
	rows         [parityMaxM][]byte
}

// remember keeps the payload of a received small message.
func (p *parityRecv) remember(seq uint16, payload []byte) {
	if len(payload) > parityMaxSize {
		return
	}
	e := &p.cache[seq%parityCache]
	p.bytes += len(payload) - len(e.data)
	e.seq, e.ok = seq, true
	e.data = append(e.data[:0], payload...)
}

func (p *parityRecv) lookup(seq uint16) ([]byte, bool) {
	e := &p.cache[seq%parityCache]
	return e.data, e.ok && e.seq == seq
}

// addRow stores parity row pf of the group starting at first and returns
// the group's index.
func (p *parityRecv) addRow(first uint16, pf parityFrame) int {
	gi := -1
	for i := range p.groups {
		if p.groups[i].first == first {
			gi = i
			break
		}
	}
	if gi >= 0 {
		if g := &p.groups[gi]; g.k != pf.k || g.m != pf.m || g.symLen != len(pf.symbol) {
			p.remove(gi) // the sender's plan does not match: start over
			gi = -1
		}
	}
	if gi < 0 {
		if len(p.groups) == parityGroups {
			p.remove(0)
		}
		p.groups = append(p.groups, rxGroup{first: first, k: pf.k, m: pf.m, symLen: len(pf.symbol)})
		gi = len(p.groups) - 1
	}
	g := &p.groups[gi]
	if g.rows[pf.j] == nil {
		g.rows[pf.j] = append([]byte(nil), pf.symbol...)
		p.bytes += len(pf.symbol)
	}
	return gi
}

func (p *parityRecv) remove(i int) {
	for _, r := range p.groups[i].rows {
		p.bytes -= len(r)
	}
	p.groups = append(p.groups[:i], p.groups[i+1:]...)
}

// onParity takes a parity frame (checked by validFrame) and rebuilds what
// it can.
func (s *Session) onParity(rc *recvChannel, f *frame, now time.Time) {
	if rc.par == nil {
		return // this side does not protect the channel
	}
	pf, _ := parseParity(f.payload, rc.cfg.maxSize)
	rc.par.addRow(f.seq, pf)
	s.rebuild(rc, now)
}

// rebuild decodes every pending group that has enough rows, dropping the
// groups that are complete or cannot be decoded.
func (s *Session) rebuild(rc *recvChannel, now time.Time) {
	p := rc.par
	for i := 0; i < len(p.groups); {
		g := p.groups[i]
		missing, usable := s.groupState(rc, &g)
		rows := 0
		for _, r := range g.rows {
			if r != nil {
				rows++
			}
		}
		switch {
		case !usable || len(missing) == 0:
			p.remove(i)
		case len(missing) > rows:
			i++
		default:
			p.remove(i)
			s.decode(rc, &g, missing, now)
			i = 0 // what was rebuilt may complete another group
		}
	}
}

// groupState lists the group's messages not yet received and reports
// whether the others are all remembered (else nothing can be decoded).
func (s *Session) groupState(rc *recvChannel, g *rxGroup) ([]int, bool) {
	var missing []int
	for i := range g.k {
		seq := g.first + uint16(i)
		if rc.fresh(seq) {
			missing = append(missing, i)
			continue
		}
		if d, ok := rc.par.lookup(seq); !ok || len(d)+2 > g.symLen {
			return nil, false
		}
	}
	return missing, true
}

// decode rebuilds the missing messages of g and delivers them.
func (s *Session) decode(rc *recvChannel, g *rxGroup, missing []int, now time.Time) {
	e := len(missing)
	a := make([][]byte, 0, e)
	b := make([][]byte, 0, e)
	sym := make([]byte, g.symLen)
	for j, row := range g.rows {
		if row == nil || len(a) == e {
			continue
		}
		rhs := append([]byte(nil), row...)
		for i := range g.k {
			d, ok := rc.par.lookup(g.first + uint16(i))
			if !ok {
				continue // a missing one
			}
			binary.BigEndian.PutUint16(sym, uint16(len(d)))
			n := copy(sym[2:], d)
			clear(sym[2+n:])
			gfMulAdd(rhs, sym, cauchy(j, i))
		}
		coef := make([]byte, e)
		for c, i := range missing {
			coef[c] = cauchy(j, i)
		}
		a, b = append(a, coef), append(b, rhs)
	}
	if !gfSolve(a, b) {
		return
	}
	for c, i := range missing {
		n := int(binary.BigEndian.Uint16(b[c]))
		if n > g.symLen-2 || n > rc.cfg.maxSize {
			rc.stats.Errors++
			s.stats.protocolErrors++
			return
		}
		f := frame{channel: rc.cfg.ID, flags: rc.cfg.frameFlags(), seq: g.first + uint16(i), payload: b[c][2 : 2+n]}
		if rc.fresh(f.seq) {
			s.stats.recovered++
			s.handleFrame(&f, now)
		}
	}
}

// frameFlags returns the flags of an unfragmented, uncompressed frame of
// the channel.
func (cs *chanSettings) frameFlags() uint8 {
	var fl uint8
	if cs.Reliability.reliable() {
		fl |= frameReliable
	}
	if cs.Reliability.sequenced() {
		fl |= frameOrdered
	}
	return fl
}
