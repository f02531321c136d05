package transport

import "time"

// BBR-like controller parameters (after BBR v1, Cardwell et al.).
const (
	bbrStartupGain   = 2.885 // 2/ln 2: doubles the delivery rate each round
	bbrCwndGain      = 2.0
	bbrBwRounds      = 10 // rounds the bandwidth max filter remembers
	bbrFullBwGrowth  = 1.25
	bbrFullBwRounds  = 3
	bbrMinRTTWindow  = 10 * time.Second
	bbrProbeRTTTime  = 200 * time.Millisecond
	bbrMinWindowMTUs = 4
	bbrInitWindowMTU = 10
	// bbrQueueTarget is the standing queue, as a fraction of the min RTT,
	// above which the flows sharing a bottleneck give back queue room.
	bbrQueueTarget = 0.25
	// bbrAggRounds is how many rounds a measure of acknowledgement
	// aggregation counts for, at least.
	bbrAggRounds = 5
)

// bbrCycle is the pacing gain of the probing cycle, one phase per min RTT:
// probe up, drain what the probe queued, cruise.
var bbrCycle = [8]float64{1.25, 0.75, 1, 1, 1, 1, 1, 1}

type bbrMode uint8

const (
	bbrStartup bbrMode = iota
	bbrDrain
	bbrProbeBW
	bbrProbeRTT
)

// bbr is the model-based controller (CongestionModel).
type bbr struct {
	mtu  int
	mode bbrMode

	// Bottleneck bandwidth: the largest delivery rate of each of the last
	// bbrBwRounds round trips.
	bwRound [bbrBwRounds]float64
	bwSeen  [bbrBwRounds]uint64 // round of each slot
	btlBw   float64

	minRTT      time.Duration
	minRTTStamp time.Time

	// Round trips: a round ends when a datagram sent after its start is
	// acknowledged.
	round          uint64
	nextRoundStart uint64 // delivered count that ends the round
	roundStart     bool

	// Startup ends when the bandwidth stops growing by 25% for three
	// rounds that were not application-limited.
	fullBw      float64
	fullBwCount int
	filled      bool

	cycle      int
	cycleStamp time.Time

	probeRTTDone time.Time // zero until inflight has drained in ProbeRTT
	probeRTTRnd  uint64
	priorMode    bbrMode

	gain, cwndGain float64

	// queueRoom is how many bytes beyond the BDP the window allows in
	// ProbeBW, so how much this flow may keep queued at the bottleneck:
	// it grows by one MTU per round while the smallest RTT of the round
	// shows no standing queue, and halves when it does (see adaptRoom).
	queueRoom   float64
	roundMinRTT time.Duration

	// Acknowledgement aggregation (after BBR's extra_acked): the bytes
	// acknowledged since aggStart beyond what the estimate explains, whose
	// largest value over the last 2×bbrAggRounds rounds the window adds
	// (see aggregation).
	aggStart   time.Time
	aggAcked   float64
	aggExtra   [2]float64
	aggRound   uint64 // round the current slot started
	delivered0 uint64 // delivered count of the previous sample
	// jitter is the mean difference between consecutive RTT samples,
	// smoothed by 1/16 (the interarrival jitter of RFC 3550), and
	// lastRTT the latest sample.
	jitter, lastRTT time.Duration
	// appLimited is the latest sample's: the flow sent less than the
	// controller allowed.
	appLimited bool

	compete competition
}

func newBBR(mtu int, now time.Time) *bbr {
	return &bbr{mtu: mtu, minRTTStamp: now, gain: bbrStartupGain, cwndGain: bbrStartupGain}
}

func (b *bbr) bandwidth() float64 { return b.btlBw }

// bdp is the estimated bandwidth-delay product in bytes, 0 if unknown.
func (b *bbr) bdp() float64 {
	if b.btlBw == 0 || b.minRTT == 0 {
		return 0
	}
	return b.btlBw * b.minRTT.Seconds()
}

func (b *bbr) window() int {
	minW := bbrMinWindowMTUs * b.mtu
	if b.mode == bbrProbeRTT {
		return minW
	}
	if !b.filled {
		// Startup never goes below what its initial pacing rate sends in
		// a round: an estimate made of the handshake's and an idle flow's
		// few datagrams measures them, not the path.
		minW = int(bbrStartupGain * float64(bbrInitWindowMTU*b.mtu))
	}
	bdp := b.bdp()
	if bdp == 0 {
		return minW
	}
	if b.mode == bbrProbeBW && b.compete.on {
		return max(int(b.compete.inflightHi), minW)
	}
	if b.mode == bbrProbeBW {
		return max(int(bdp+b.queueRoom+b.aggregation()), minW)
	}
	return max(int(b.cwndGain*bdp+b.aggregation()), minW)
}

// initialRate is the pacing rate before any estimate: the initial window
// per RTT, times the Startup gain.
func (b *bbr) initialRate() float64 {
	rtt := b.minRTT
	if rtt == 0 {
		rtt = initialRTT
	}
	return bbrStartupGain * float64(bbrInitWindowMTU*b.mtu) / rtt.Seconds()
}

// pacingRate is the gain times the estimate. Startup never paces below
// the initial rate (see window), and an application-limited flow never
// below the estimate: it has no queue to drain, and the estimate is at
// least its own rate, so its messages leave as they come.
func (b *bbr) pacingRate() float64 {
	gain := b.gain
	if b.appLimited {
		gain = max(gain, 1)
	}
	rate := gain * b.btlBw
	switch {
	case !b.filled:
		return max(rate, b.initialRate())
	case b.mode == bbrProbeBW && b.compete.on:
		return max(rate, b.compete.inflightHi/b.minRTT.Seconds())
	}
	return rate
}

func (b *bbr) onAck(now time.Time, rs rateSample) {
	b.roundStart = false
	b.appLimited = rs.appLimited
	if rs.rtt > 0 && (b.roundMinRTT == 0 || rs.rtt < b.roundMinRTT) {
		b.roundMinRTT = rs.rtt
	}
	b.updateAggregation(now, rs)
	b.updateJitter(rs.rtt)
	if rs.priorDelivered >= b.nextRoundStart {
		b.nextRoundStart = rs.delivered
		b.round++
		b.roundStart = true
		b.adaptRoom(rs)
		b.adaptCompete(rs)
		b.roundMinRTT = 0
	}
	b.updateBw(rs)
	b.updateMinRTT(now, rs)
	b.checkFull(rs)
	b.advance(now, rs)
}

// updateBw feeds the max filter. An application-limited sample measures
// the application, not the path: it counts only when it raises the
// estimate.
func (b *bbr) updateBw(rs rateSample) {
	if rs.rate <= 0 || (rs.appLimited && rs.rate < b.btlBw) {
		return
	}
	i := b.round % bbrBwRounds
	if b.bwSeen[i] != b.round {
		b.bwSeen[i], b.bwRound[i] = b.round, 0
	}
	b.bwRound[i] = max(b.bwRound[i], rs.rate)
	b.btlBw = 0
	for j := range b.bwRound {
		if b.round-b.bwSeen[j] < bbrBwRounds {
			b.btlBw = max(b.btlBw, b.bwRound[j])
		}
	}
}

// updateAggregation measures how far acknowledgements come in bursts:
// a path that delivers in bursts (a receiver or a link that batches, or
// jitter that reorders) acknowledges nothing for a while and then a lot
// at once, and a window of one BDP would sit full in between, so the
// delivery rate, and the next estimate, would fall. The extra is capped
// at the window and at 100 ms at the estimate.
func (b *bbr) updateAggregation(now time.Time, rs rateSample) {
	acked := float64(rs.delivered - b.delivered0)
	b.delivered0 = rs.delivered
	if b.btlBw == 0 || acked <= 0 {
		return
	}
	if b.round-b.aggRound >= bbrAggRounds {
		b.aggRound = b.round
		b.aggExtra[0], b.aggExtra[1] = b.aggExtra[1], 0
	}
	expected := b.btlBw * now.Sub(b.aggStart).Seconds()
	if b.aggAcked <= expected {
		b.aggStart, b.aggAcked, expected = now, 0, 0
	}
	b.aggAcked += acked
	extra := min(b.aggAcked-expected, b.btlBw*0.1, max(b.cwndGain*b.bdp(), float64(bbrInitWindowMTU*b.mtu)))
	b.aggExtra[1] = max(b.aggExtra[1], extra)
}

// aggregation is the window's allowance for acknowledgement aggregation.
func (b *bbr) aggregation() float64 { return max(b.aggExtra[0], b.aggExtra[1]) }

// updateJitter takes an RTT sample into the jitter. A standing queue
// raises consecutive RTTs alike and leaves it small; a path's jitter
// does not.
func (b *bbr) updateJitter(rtt time.Duration) {
	if rtt <= 0 {
		return
	}
	if b.lastRTT > 0 {
		d := rtt - b.lastRTT
		b.jitter += (max(d, -d) - b.jitter) / 16
	}
	b.lastRTT = rtt
}

func (b *bbr) updateMinRTT(now time.Time, rs rateSample) {
	if rs.rtt <= 0 {
		return
	}
	expired := now.Sub(b.minRTTStamp) > bbrMinRTTWindow
	if expired && b.mode != bbrProbeRTT {
		b.compete.floor = b.minRTT
	}
	if b.minRTT == 0 || rs.rtt <= b.minRTT || expired {
		b.minRTT, b.minRTTStamp = rs.rtt, now
	}
	// An application-limited flow (a game's own traffic) keeps little in
	// flight anyway: it takes the new sample and skips ProbeRTT, whose
	// four-datagram window would hold its messages back.
	if expired && b.mode != bbrProbeRTT && !rs.appLimited {
		b.enterProbeRTT()
	}
}

func (b *bbr) enterProbeRTT() {
	b.priorMode = b.mode
	b.mode = bbrProbeRTT
	b.gain, b.cwndGain = 1, 1
	b.probeRTTDone = time.Time{}
}

// checkFull detects that Startup filled the pipe.
func (b *bbr) checkFull(rs rateSample) {
	if b.filled || !b.roundStart || rs.appLimited {
		return
	}
	if b.btlBw >= b.fullBw*bbrFullBwGrowth {
		b.fullBw, b.fullBwCount = b.btlBw, 0
		return
	}
	if b.fullBwCount++; b.fullBwCount >= bbrFullBwRounds {
		b.filled = true
	}
}

// advance moves between the modes.
func (b *bbr) advance(now time.Time, rs rateSample) {
	switch b.mode {
	case bbrStartup:
		if b.filled {
			b.mode = bbrDrain
			b.gain, b.cwndGain = 1/bbrStartupGain, bbrStartupGain
		}
	case bbrDrain:
		if float64(rs.inFlight) <= b.bdp() {
			b.enterProbeBW(now)
		}
	case bbrProbeBW:
		b.nextPhase(now, rs)
	case bbrProbeRTT:
		switch {
		case b.probeRTTDone.IsZero() && rs.inFlight <= b.window():
			b.probeRTTDone, b.probeRTTRnd = now.Add(bbrProbeRTTTime), b.round
		case !b.probeRTTDone.IsZero() && !now.Before(b.probeRTTDone) && b.round > b.probeRTTRnd:
			b.minRTTStamp = now
			b.competeProbeRTTDone()
			if b.filled {
				b.enterProbeBW(now)
			} else {
				b.mode = bbrStartup
				b.gain, b.cwndGain = bbrStartupGain, bbrStartupGain
			}
		}
	}
}

// adaptRoom adjusts queueRoom at the end of a round: additive increase
// while the round's smallest RTT stays within bbrQueueTarget of the min
// RTT, multiplicative decrease when it does not (a queue that never
// drained during a whole round). Every flow at the bottleneck sees the
// same queue, so they all give back half their room together and regain
// it by the same step, and their rooms, hence their shares of the link,
// converge (as with AIMD). Loss plays no part. The room stays between
// four MTUs and one BDP, so the window stays within the 2·BDP of BBR.
func (b *bbr) adaptRoom(rs rateSample) {
	bdp := b.bdp()
	if b.mode != bbrProbeBW || bdp == 0 || b.roundMinRTT == 0 {
		return
	}
	queued := b.roundMinRTT - b.minRTT
	switch {
	case float64(queued) > bbrQueueTarget*float64(b.minRTT):
		b.queueRoom /= 2
	case !rs.appLimited:
		b.queueRoom += float64(b.mtu)
	}
	b.queueRoom = min(max(b.queueRoom, float64(bbrMinWindowMTUs*b.mtu)), bdp)
}

func (b *bbr) enterProbeBW(now time.Time) {
	b.mode = bbrProbeBW
	b.cwndGain = bbrCwndGain
	b.cycle = 2 // start cruising
	b.queueRoom = b.bdp()
	b.cycleStamp = now
	b.gain = bbrCycle[b.cycle]
}

// nextPhase advances the probing cycle once a min RTT has passed in the
// phase: the probe also waits until it has put its gain times the BDP in
// flight (for at most two min RTTs), and the drain that follows leaves
// early once inflight is down to one BDP.
func (b *bbr) nextPhase(now time.Time, rs rateSample) {
	inPhase := now.Sub(b.cycleStamp)
	var next bool
	switch g := bbrCycle[b.cycle]; {
	case g > 1:
		next = inPhase > b.minRTT && (float64(rs.inFlight) >= g*b.bdp() || inPhase > 2*b.minRTT)
	case g < 1:
		next = inPhase > b.minRTT || float64(rs.inFlight) <= b.bdp()
	default:
		next = inPhase > b.minRTT
	}
	if !next {
		return
	}
	b.cycle = (b.cycle + 1) % len(bbrCycle)
	b.cycleStamp = now
	b.gain = bbrCycle[b.cycle]
}

// rateOf returns bytes over d as a rate, 0 if d is not positive.
func rateOf(bytes uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / d.Seconds()
}
