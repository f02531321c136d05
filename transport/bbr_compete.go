package transport

import "time"

// Competing with loss-based flows. The model-based controller gives back
// queue room while a queue stands at the bottleneck (adaptRoom), which
// keeps it fair to flows that do the same and keeps the queue short when
// it is alone. A loss-based flow (TCP's or QUIC's Cubic or Reno) does the
// opposite: it fills the queue until it overflows, and a flow that yields
// to that queue ends with a fraction of its share. So the controller
// watches whose queue it sees. When, for competeRounds rounds (a round
// without it takes back competeResume of the count rather than restart
// it: noise dips a round now and then), the smallest RTT of the round
// shows a deep queue (above competeDeep of the min RTT) that is more than
// competeOwn times what this flow's own queue room explains (room over
// rate, its share of a queue built by flows that all hold the same room;
// the rate is the largest estimate since the last ProbeRTT, since the
// estimate of a flow already squeezed by the other one has fallen with
// its share and would explain any queue), the queue belongs to a flow
// that does not yield, and the controller competes: its window becomes
// inflightHi, raised by one MTU per round and cut by competeBeta after a
// round with a loss (once per round, and only while a queue stands:
// random loss on an empty path still does not count), as Reno and Cubic
// do, and its pacing follows the window.
//
// A new flow's Startup fills the queue too, for a few rounds (hence
// competeRounds), and a flow that joined over a queue measures a min RTT
// that includes it and keeps that much queued until its ProbeRTT, less
// than competeDeep (hence the depth).
//
// The competition ends when a ProbeRTT finds the queue drained: the other
// flow left, or had just backed off. In the second case the queue soon
// stands again, and the competition resumes after competeResume rounds
// where it stopped. A ProbeRTT that still finds the queue standing keeps
// the min RTT measured before it, since the new one only measured the
// other flow's queue, but only competeKeepFloor times in a row: a path
// whose propagation delay grew (a new route) looks the same, and after
// that the new min RTT is taken and the competition ends (it starts
// again if the deep queue is still there over the new min RTT).
const (
	competeRounds = 16
	competeResume = 4
	competeDeep   = 0.5
	competeOwn    = 1.5
	competeBeta   = 0.7
	// competeKeepFloor is how many ProbeRTTs in a row may keep the min
	// RTT measured before them.
	competeKeepFloor = 3
)

// competition is the state of the loss-based mode.
type competition struct {
	on         bool
	foreign    int     // rounds with a deep queue not of this flow's making, less 4 per other round
	bwMax      float64 // the largest bandwidth estimate since the last ProbeRTT
	inflightHi float64 // the window while competing
	lost       int     // bytes declared lost in this round
	floor      time.Duration
	kept       int // ProbeRTTs in a row that kept floor
	// resumeHi is inflightHi when a ProbeRTT last ended the competition,
	// until the next ProbeRTT.
	resumeHi float64
	// roundMins are the smallest RTTs of the last competeRounds rounds
	// (see standingQueue).
	roundMins [competeRounds]time.Duration
}

// onLoss counts the bytes of a datagram declared lost.
func (b *bbr) onLoss(bytes int) { b.compete.lost += bytes }

// adaptCompete runs at the end of a round in ProbeBW: it counts the
// rounds of foreign queue and starts the competition, or, competing,
// adapts inflightHi to the round's losses.
func (b *bbr) adaptCompete(rs rateSample) {
	c := &b.compete
	lost := c.lost
	c.lost = 0
	bdp := b.bdp()
	if b.mode != bbrProbeBW || bdp == 0 || b.roundMinRTT == 0 {
		return
	}
	queued := b.standingQueue()
	minW := float64(bbrMinWindowMTUs * b.mtu)
	if c.on {
		switch {
		case lost > 0 && queued > max(time.Duration(bbrQueueTarget*float64(b.minRTT)), 2*b.jitter):
			c.inflightHi = max(c.inflightHi*competeBeta, minW)
		case !rs.appLimited:
			c.inflightHi += float64(b.mtu)
		}
		return
	}
	c.bwMax = max(c.bwMax, b.btlBw)
	own := time.Duration(b.queueRoom / c.bwMax * float64(time.Second))
	deep := max(time.Duration(competeDeep*float64(b.minRTT)), 2*b.jitter)
	if queued > deep && float64(queued) > competeOwn*float64(own) && !rs.appLimited {
		c.foreign++
	} else {
		c.foreign = max(c.foreign-competeResume, 0)
	}
	need := competeRounds
	if c.resumeHi > 0 {
		need = competeResume
	}
	if c.foreign >= need {
		// Enough in flight to keep the current rate over the queue, or
		// what it had when it stopped competing a moment ago.
		c.on = true
		c.inflightHi = max(bdp+b.queueRoom, b.btlBw*b.roundMinRTT.Seconds(), c.resumeHi, minW)
		c.resumeHi = 0
	}
}

// standingQueue records the smallest RTT of the round that just ended
// and returns the queue that stood through the last competeRounds rounds
// in ProbeBW: the smallest of their smallest RTTs, over the min RTT. A queue
// of another flow stands for many rounds; the jitter of a path lifts the
// smallest RTT of one round or another, but not of all of them, so it is
// not taken for a queue (nor is the loss of a jittery path for its
// overflow). Nor is a queue shallower than twice the jitter (see
// updateJitter) deep: on a path whose jitter dwarfs its min RTT, even
// the smallest RTT of many rounds stays above the min RTT by a fraction
// of the jitter.
func (b *bbr) standingQueue() time.Duration {
	c := &b.compete
	c.roundMins[b.round%competeRounds] = b.roundMinRTT
	low := b.roundMinRTT
	for _, d := range c.roundMins {
		if d > 0 && d < low {
			low = d
		}
	}
	return low - b.minRTT
}

// competeProbeRTTDone decides, at the end of a ProbeRTT, whether to keep
// competing: only if the queue still stood at its lowest inflight.
func (b *bbr) competeProbeRTTDone() {
	c := &b.compete
	c.bwMax = b.btlBw
	if !c.on {
		c.resumeHi = 0
		return
	}
	if float64(b.minRTT-c.floor) > bbrQueueTarget*float64(c.floor) {
		if c.kept++; c.kept < competeKeepFloor {
			b.minRTT = c.floor
			return
		}
	}
	c.on, c.foreign, c.kept, c.resumeHi = false, 0, 0, c.inflightHi
}
