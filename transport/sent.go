package transport

import "time"

// Loss detection thresholds (as in RFC 9002).
const (
	packetThreshold = 3
	maxBackoff      = 6
)

// sentDatagram is the record of one sent datagram.
type sentDatagram struct {
	seq       uint32
	at        time.Time
	size      int
	eliciting bool // expects an acknowledgement
	windowed  bool // counts against MaxInFlightBytes
	done      bool // acknowledged or declared lost
	lost      bool // declared lost; an acknowledgement may still prove it was not
	timedOut  bool // declared lost by the retransmission timeout
	frames    []fragRef
	deliveryStamp
}

// sentHistory holds the sent datagrams from the oldest unresolved one on,
// indexed by sequence.
type sentHistory struct {
	q             deque[sentDatagram]
	inFlight      int // bytes of outstanding windowed datagrams
	outstanding   int // eliciting datagrams not yet resolved
	largestAcked  uint32
	hasAcked      bool
	peerLatest    uint32    // the latest datagram the peer said it received
	peerHeard     bool      // peerLatest is set
	lossTime      time.Time // earliest time-threshold loss, zero if none
	lastEliciting time.Time
	spare         [][]fragRef
	// Reordering tolerance, raised when a datagram declared lost is
	// acknowledged after all: the packet threshold and the time threshold
	// as a fraction of the RTT in eighths (RFC 9002 starts at 3 and 9/8).
	reorderPackets uint32
	reorderEighths int
	spurious       uint64
}

func (h *sentHistory) get(seq uint32) *sentDatagram {
	if h.q.len() == 0 {
		return nil
	}
	i := seq - h.q.front().seq
	if i >= uint32(h.q.len()) {
		return nil
	}
	return h.q.ptr(int(i))
}

func (h *sentHistory) push(d sentDatagram) {
	if d.eliciting {
		h.outstanding++
		h.lastEliciting = d.at
		if d.windowed {
			h.inFlight += d.size
		}
	}
	h.q.push(d)
}

// resolve marks d acknowledged or lost.
func (h *sentHistory) resolve(d *sentDatagram) {
	d.done = true
	if d.eliciting {
		h.outstanding--
		if d.windowed {
			h.inFlight -= d.size
		}
	}
}

// trim drops resolved datagrams from the front, recycling their frame lists.
// Datagrams declared lost stay while an ack vector can still cover them.
func (h *sentHistory) trim() {
	for h.q.len() > 0 && h.q.front().done &&
		(!h.q.front().lost || !h.hasAcked || seqDiff32(h.largestAcked, h.q.front().seq) >= ackVectorBits) {
		d := h.q.pop()
		if cap(d.frames) > 0 && len(h.spare) < 64 {
			h.spare = append(h.spare, d.frames[:0])
		}
	}
}

// frameList returns an empty frame list, reusing a recycled one.
func (h *sentHistory) frameList() []fragRef {
	if n := len(h.spare); n > 0 {
		l := h.spare[n-1]
		h.spare = h.spare[:n-1]
		return l
	}
	return nil
}

// onAck processes the ack vector of an incoming header.
func (s *Session) onAck(h header, now time.Time) {
	if h.ackMask == 0 {
		return
	}
	sh := &s.sent
	if seqDiff32(h.ackLatest, s.nextSeq) < 0 && (!sh.peerHeard || seqDiff32(h.ackLatest, sh.peerLatest) > 0) {
		sh.peerLatest, sh.peerHeard = h.ackLatest, true // a datagram we sent, newer than any it named
		s.stats.heard++
	}
	newly := false
	var newest *sentDatagram // the newest eliciting datagram acknowledged now
	ackedBytes := 0
	for n := range uint32(ackVectorBits) {
		if h.ackMask&(1<<n) == 0 {
			continue
		}
		seq := h.ackLatest - n
		d := sh.get(seq)
		if d == nil {
			continue
		}
		if d.lost {
			s.spuriousLoss(d)
		}
		if d.done {
			continue
		}
		if n == 0 && (!sh.hasAcked || seqDiff32(seq, sh.largestAcked) > 0) && h.delay != delayUnknown && d.eliciting {
			s.rtt.update(now.Sub(d.at), time.Duration(h.delay)*delayUnit)
		}
		if !sh.hasAcked || seqDiff32(seq, sh.largestAcked) > 0 {
			sh.largestAcked, sh.hasAcked = seq, true
		}
		sh.resolve(d)
		if d.eliciting {
			if newest == nil {
				newest = d
			}
			ackedBytes += d.size
			newly = true
			s.stats.acked++
			s.noteLoss(false)
		}
		for _, r := range d.frames {
			r.msg.owner.onAcked(r)
		}
	}
	if newly {
		s.rtoCount = 0
		s.sampleDelivery(newest, ackedBytes, now)
	}
	s.detectLoss(now)
}

// sampleDelivery feeds the congestion controller the sample of an
// acknowledgement whose newest ack-eliciting datagram is p.
func (s *Session) sampleDelivery(p *sentDatagram, acked int, now time.Time) {
	rs := s.dlv.sample(now, p.at, p.deliveryStamp, acked, s.rtt.min)
	rs.rtt = now.Sub(p.at)
	if p.seq == s.sent.largestAcked {
		rs.rtt = s.rtt.latest // corrected by the peer's delay
	}
	rs.inFlight = s.sent.inFlight
	s.cc.onAck(now, rs)
	s.setPacing(now)
}

// spuriousLoss handles the acknowledgement of a datagram declared lost:
// its frames count as delivered and, if the packet or time threshold
// declared it lost, the reordering tolerance grows. A datagram the
// retransmission timeout gave up on says nothing about reordering (the
// timeout fires when acknowledgements stall, for instance while either
// side is starved of CPU), so it leaves the thresholds alone.
func (s *Session) spuriousLoss(d *sentDatagram) {
	sh := &s.sent
	d.lost = false
	sh.spurious++
	s.stats.lost--
	for _, r := range d.frames {
		r.msg.owner.onAcked(r)
	}
	if d.timedOut {
		return
	}
	if gap := seqDiff32(sh.largestAcked, d.seq) + 1; gap > 0 {
		sh.reorderPackets = min(max(sh.reorderPackets, uint32(gap)), ackVectorBits/2)
	}
	sh.reorderEighths = min(sh.reorderEighths*2, 16)
}

// detectLoss declares lost the datagrams sent before the largest
// acknowledged one that are packetThreshold behind it or older than the
// loss delay, and computes when the next one would time out.
func (s *Session) detectLoss(now time.Time) {
	sh := &s.sent
	sh.lossTime = time.Time{}
	if sh.hasAcked {
		rtt := max(s.rtt.srtt(), s.rtt.latest)
		delay := max(rtt*time.Duration(8+sh.reorderEighths)/8, timerGranulary)
		for i := range sh.q.len() {
			d := sh.q.ptr(i)
			if seqDiff32(d.seq, sh.largestAcked) >= 0 {
				break
			}
			if d.done {
				continue
			}
			if uint32(seqDiff32(sh.largestAcked, d.seq)) >= sh.reorderPackets || !now.Before(d.at.Add(delay)) {
				s.declareLost(d, now)
			} else {
				sh.lossTime = earliest(sh.lossTime, d.at.Add(delay))
			}
		}
	}
	sh.trim()
}

// declareLost marks d lost and queues its reliable frames for
// retransmission: at once after a timeout (now zero), else those a repair
// may rebuild when the receiver's report would have come (repairHold).
func (s *Session) declareLost(d *sentDatagram, now time.Time) {
	s.sent.resolve(d)
	d.lost = true
	if d.eliciting {
		s.stats.lost++
		s.noteLoss(true)
		if d.windowed {
			s.cc.onLoss(d.size)
		}
	}
	for _, r := range d.frames {
		c := r.msg.owner
		var hold time.Time
		if d := s.repairHold(c, r.msg); d > 0 && !now.IsZero() {
			hold = now.Add(d)
		}
		c.onLost(r, hold)
	}
}

// noteLoss updates the recent loss rate (an exponential average over about
// the last 64 datagrams) and the slower one the redundancy policy plans
// with (about the last 512).
func (s *Session) noteLoss(lost bool) {
	v := 0.0
	if lost {
		v = 1
	}
	s.lossRate += (v - s.lossRate) / 64
	s.lossSlow += (v - s.lossSlow) / 512
	s.lossSamples++
}

// rtoDeadline returns when the retransmission timeout fires, or zero.
func (s *Session) rtoDeadline() time.Time {
	if s.sent.outstanding == 0 || s.halfOpen() {
		return time.Time{}
	}
	rto := min(s.rtt.rto(s.set.ackDelay)<<min(s.rtoCount, maxBackoff), maxRTO)
	return s.sent.lastEliciting.Add(rto)
}

// onRTO declares every outstanding datagram lost and backs off.
func (s *Session) onRTO() {
	for i := range s.sent.q.len() {
		if d := s.sent.q.ptr(i); !d.done {
			s.declareLost(d, time.Time{})
			d.timedOut = true
		}
	}
	s.sent.trim()
	s.rtoCount++
	s.stats.rtos++
}
