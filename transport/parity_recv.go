package transport

import (
	"encoding/binary"
	"time"
)

// Receiving side of repairs (see parity.go): a channel that protects its
// messages keeps the payloads of its latest small messages and a few
// repairs that still cover a missing message, and rebuilds every missing
// message that its repairs determine, by elimination, as soon as they do.
const (
	parityCache = 2 * repairWindow // messages remembered, by sequence: a window and those sent after it
	maxRepairs  = 16               // repairs waiting for a decode
	// reportCopies is how many datagrams carry the report of a rebuild
	// (a lost report costs a retransmission, not a message).
	reportCopies = 2
)

type parityRecv struct {
	cache   [parityCache]cachedMsg
	repairs []rxRepair
	bytes   int  // payload and repair bytes held
	reports int  // datagrams that should still carry a report
	busy    bool // delivering what a rebuild gave
	// repairAt is when the latest repair arrived: acknowledgements are
	// thinned only while repairs come.
	repairAt time.Time
}

type cachedMsg struct {
	seq  uint16
	ok   bool
	data []byte
}

// rxRepair is a repair waiting for enough others to rebuild what it covers.
type rxRepair struct {
	first  uint16
	n      int
	id     byte
	symbol []byte
}

func (r *rxRepair) covers(seq uint16) bool { return int(uint16(seq-r.first)) < r.n }

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

// addRepair stores a repair, dropping the oldest when full.
func (p *parityRecv) addRepair(first uint16, rf repairFrame) {
	if len(p.repairs) == maxRepairs {
		p.remove(0)
	}
	p.repairs = append(p.repairs, rxRepair{first: first, n: rf.n, id: rf.id, symbol: append([]byte(nil), rf.symbol...)})
	p.bytes += len(rf.symbol)
}

func (p *parityRecv) remove(i int) {
	p.bytes -= len(p.repairs[i].symbol)
	p.repairs = append(p.repairs[:i], p.repairs[i+1:]...)
}

// covers reports whether a pending repair covers seq (whose arrival may
// complete a decode).
func (p *parityRecv) covers(seq uint16) bool {
	for i := range p.repairs {
		if p.repairs[i].covers(seq) {
			return true
		}
	}
	return false
}

// Acknowledgements of datagrams that carry only messages of protected
// channels receiving repairs (within repairedRecently) are thinner:
// repairs, not retransmissions, make up for their losses, and a rebuild
// is reported at once, so an acknowledgement waits repairedAckDelay ack
// delays or repairedAckEvery such datagrams (a gap or a reordering still
// hurries it, for the losses that repairs do not rebuild). A clean path
// gets no repairs and so the usual acknowledgements.
const (
	repairedAckDelay = 4
	repairedAckEvery = 16
	repairedRecently = time.Second
)

// repaired reports whether every reliable frame of a datagram, one at
// least, is of a protected channel that received a repair recently.
func (s *Session) repaired(frames []frame, now time.Time) bool {
	any := false
	for i := range frames {
		f := &frames[i]
		if f.flags&(frameReliable|frameParity) == 0 {
			continue
		}
		p := s.recv[s.set.byID[f.channel]].par
		if p == nil || p.repairAt.IsZero() || now.Sub(p.repairAt) > repairedRecently {
			return false
		}
		any = true
	}
	return any
}

// onParity takes a repair or report frame (checked by validFrame).
func (s *Session) onParity(rc *recvChannel, f *frame, now time.Time) {
	rf, report, _ := parseRepair(f.payload, rc.cfg.maxSize)
	if report {
		s.send[s.set.byID[f.channel]].onReport(f.seq)
		return
	}
	if rc.par == nil {
		return // this side does not protect the channel
	}
	rc.par.addRepair(f.seq, rf)
	rc.par.repairAt = now
	s.rebuild(rc, now)
}

// rebuild delivers every missing message the pending repairs determine,
// and drops the repairs that can no longer help: those covering nothing
// missing and those covering a message neither missing nor remembered.
func (s *Session) rebuild(rc *recvChannel, now time.Time) {
	p := rc.par
	unknown := s.pruneRepairs(rc)
	if len(unknown) == 0 {
		return
	}
	a := make([][]byte, len(p.repairs))
	for r := range p.repairs {
		rp := &p.repairs[r]
		a[r] = make([]byte, len(unknown))
		for u, seq := range unknown {
			if rp.covers(seq) {
				a[r][u] = repairCoef(rp.id, seq)
			}
		}
	}
	comb := gfEliminate(a)
	rhs := make([][]byte, len(p.repairs)) // computed when first needed
	long := 0
	for r := range p.repairs {
		long = max(long, len(p.repairs[r].symbol))
	}
	var got []rebuilt
	for u, c := range comb {
		if c == nil {
			continue
		}
		v := make([]byte, long)
		for r, x := range c {
			if x == 0 {
				continue
			}
			if rhs[r] == nil {
				rhs[r] = p.reduced(&p.repairs[r], unknown)
			}
			gfMulAdd(v, rhs[r], x)
		}
		got = append(got, rebuilt{seq: unknown[u], sym: v})
	}
	s.deliverRebuilt(rc, got, now)
}

// rebuilt is a message's symbol as a decode gave it.
type rebuilt struct {
	seq uint16
	sym []byte
}

// pruneRepairs drops the repairs that cannot help and returns the missing
// messages the others cover, in sequence order.
func (s *Session) pruneRepairs(rc *recvChannel) []uint16 {
	p := rc.par
	var unknown []uint16
	for i := 0; i < len(p.repairs); {
		rp := &p.repairs[i]
		var missing []uint16
		usable := true
		for k := range rp.n {
			seq := rp.first + uint16(k)
			if rc.fresh(seq) {
				missing = append(missing, seq)
			} else if d, ok := p.lookup(seq); !ok || len(d)+2 > len(rp.symbol) {
				usable = false
				break
			}
		}
		if !usable || len(missing) == 0 {
			p.remove(i)
			continue
		}
		for _, seq := range missing {
			unknown = insertSeq(unknown, seq, rc.base)
		}
		i++
	}
	return unknown
}

// insertSeq adds seq to the sorted set xs (ordered from base on).
func insertSeq(xs []uint16, seq, base uint16) []uint16 {
	i := 0
	for i < len(xs) && uint16(xs[i]-base) < uint16(seq-base) {
		i++
	}
	if i < len(xs) && xs[i] == seq {
		return xs
	}
	xs = append(xs, 0)
	copy(xs[i+1:], xs[i:])
	xs[i] = seq
	return xs
}

// reduced returns the repair's symbol less the messages it covers that
// are not unknown (all remembered, as pruneRepairs checked).
func (p *parityRecv) reduced(rp *rxRepair, unknown []uint16) []byte {
	v := append([]byte(nil), rp.symbol...)
	for k := range rp.n {
		seq := rp.first + uint16(k)
		if d, ok := p.lookup(seq); ok && !containsSeq(unknown, seq) {
			addSymbol(v, d, repairCoef(rp.id, seq))
		}
	}
	return v
}

func containsSeq(xs []uint16, x uint16) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// deliverRebuilt hands the rebuilt messages to the channel as if they had
// arrived, and plans the report that spares their retransmission.
func (s *Session) deliverRebuilt(rc *recvChannel, got []rebuilt, now time.Time) {
	p := rc.par
	p.busy = true
	defer func() { p.busy = false }()
	for _, g := range got {
		n := int(binary.BigEndian.Uint16(g.sym))
		if n > len(g.sym)-2 || n > rc.cfg.maxSize {
			rc.stats.Errors++
			s.stats.protocolErrors++
			return
		}
		f := frame{channel: rc.cfg.ID, flags: rc.cfg.frameFlags(), seq: g.seq, payload: g.sym[2 : 2+n]}
		if rc.fresh(f.seq) {
			s.stats.recovered++
			s.handleFrame(&f, now)
			p.reports = reportCopies
			s.scheduleAck(now)
		}
	}
	s.pruneRepairs(rc)
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
