package transport

import (
	"testing"
	"time"
)

// probeBW returns a controller cruising in ProbeBW at 1 MB/s over a
// 40 ms min RTT: a BDP of exactly 40,000 bytes.
func probeBW() *bbr {
	b := newBBR(DefaultMTU, simEpoch)
	b.btlBw, b.minRTT, b.filled = 1e6, 40*time.Millisecond, true
	b.enterProbeBW(simEpoch)
	return b
}

// TestModelProbeCycle: each phase of the probing cycle lasts more than a
// min RTT; the probe (1.25) also waits for 1.25 BDP in flight, for at
// most two min RTTs; the drain (0.75) leaves as soon as inflight is down
// to one BDP.
func TestModelProbeCycle(t *testing.T) {
	const minRTT = 40 * time.Millisecond
	for _, tc := range []struct {
		name     string
		cycle    int
		after    time.Duration
		inFlight int
		next     bool
	}{
		{"probe, one min RTT", 0, minRTT, 50_000, false},
		{"probe, inflight 1.25 BDP", 0, minRTT + 1, 50_000, true},
		{"probe, inflight short", 0, minRTT + 1, 49_999, false},
		{"probe, two min RTTs", 0, 2 * minRTT, 0, false},
		{"probe, over two min RTTs", 0, 2*minRTT + 1, 0, true},
		{"drain, inflight one BDP", 1, 0, 40_000, true},
		{"drain, inflight over", 1, minRTT, 40_001, false},
		{"drain, over a min RTT", 1, minRTT + 1, 40_001, true},
		{"cruise, one min RTT", 2, minRTT, 0, false},
		{"cruise, over", 2, minRTT + 1, 0, true},
	} {
		b := probeBW()
		b.cycle, b.gain = tc.cycle, bbrCycle[tc.cycle]
		b.nextPhase(simEpoch.Add(tc.after), rateSample{inFlight: tc.inFlight})
		if moved := b.cycle != tc.cycle; moved != tc.next {
			t.Errorf("%s: moved on %v, want %v", tc.name, moved, tc.next)
		}
		if tc.next && (b.gain != bbrCycle[(tc.cycle+1)%len(bbrCycle)] || !b.cycleStamp.Equal(simEpoch.Add(tc.after))) {
			t.Errorf("%s: gain %g from %v", tc.name, b.gain, b.cycleStamp)
		}
	}
}

// TestModelQueueRoom: a round whose smallest RTT stands more than a
// quarter of the min RTT above it halves the room; one within grows it by
// an MTU (unless application-limited); the room stays between four MTUs
// and one BDP.
func TestModelQueueRoom(t *testing.T) {
	for _, tc := range []struct {
		name       string
		room       float64
		queued     time.Duration
		appLimited bool
		want       float64
	}{
		{"within the target", 20_000, 10 * time.Millisecond, false, 20_000 + DefaultMTU},
		{"over the target", 20_000, 10*time.Millisecond + 1, false, 10_000},
		{"application-limited", 20_000, 0, true, 20_000},
		{"floor", 5_000, 20 * time.Millisecond, false, 4 * DefaultMTU},
		{"cap", 40_000, 0, false, 40_000},
	} {
		b := probeBW()
		b.queueRoom = tc.room
		b.roundMinRTT = b.minRTT + tc.queued
		b.adaptRoom(rateSample{appLimited: tc.appLimited})
		if b.queueRoom != tc.want {
			t.Errorf("%s: room %.0f, want %.0f", tc.name, b.queueRoom, tc.want)
		}
	}
}

// TestModelFullPipe: Startup ends after three rounds in a row without
// 25% more bandwidth; a round with 25% more starts the count again.
func TestModelFullPipe(t *testing.T) {
	b := newBBR(DefaultMTU, simEpoch)
	b.roundStart, b.fullBw = true, 1000
	b.btlBw = 1250
	b.checkFull(rateSample{})
	if b.fullBw != 1250 || b.fullBwCount != 0 {
		t.Fatalf("25%% more: full bandwidth %.0f, count %d", b.fullBw, b.fullBwCount)
	}
	b.btlBw = 1562 // under 1.25 × 1250
	for i := 1; i <= bbrFullBwRounds; i++ {
		if b.filled {
			t.Fatalf("filled after %d flat rounds", i-1)
		}
		b.checkFull(rateSample{})
	}
	if !b.filled {
		t.Error("not filled after three flat rounds")
	}
}

// TestModelRounds: a round ends with the acknowledgement of a datagram
// sent when the delivered count had reached the round's end.
func TestModelRounds(t *testing.T) {
	b := newBBR(DefaultMTU, simEpoch)
	b.nextRoundStart = 1000
	b.onAck(simEpoch, rateSample{priorDelivered: 999, delivered: 1500, rtt: time.Millisecond})
	if b.round != 0 {
		t.Fatalf("round %d before its end", b.round)
	}
	b.onAck(simEpoch, rateSample{priorDelivered: 1000, delivered: 2000, rtt: time.Millisecond})
	if b.round != 1 || b.nextRoundStart != 2000 {
		t.Errorf("round %d, next at %d; want 1, 2000", b.round, b.nextRoundStart)
	}
}

// TestModelBandwidthWindow: the estimate is the largest delivery rate of
// the last ten rounds; an application-limited sample only raises it.
func TestModelBandwidthWindow(t *testing.T) {
	b := newBBR(DefaultMTU, simEpoch)
	b.updateBw(rateSample{rate: 5000})
	b.updateBw(rateSample{rate: 3000, appLimited: true})
	b.updateBw(rateSample{rate: 0})
	if b.btlBw != 5000 {
		t.Fatalf("estimate %.0f, want 5000", b.btlBw)
	}
	for r := uint64(1); r < bbrBwRounds; r++ {
		b.round = r
		b.updateBw(rateSample{rate: 1000})
		if b.btlBw != 5000 {
			t.Fatalf("round %d: estimate %.0f, want 5000 still", r, b.btlBw)
		}
	}
	b.round = bbrBwRounds
	b.updateBw(rateSample{rate: 1000})
	if b.btlBw != 1000 {
		t.Errorf("ten rounds later: estimate %.0f, want 1000", b.btlBw)
	}
}

// TestModelJitter: the jitter is the mean difference of consecutive RTT
// samples, smoothed by 1/16; samples of zero are ignored.
func TestModelJitter(t *testing.T) {
	b := newBBR(DefaultMTU, simEpoch)
	b.updateJitter(40 * time.Millisecond)
	b.updateJitter(0)
	if b.jitter != 0 || b.lastRTT != 40*time.Millisecond {
		t.Fatalf("after one sample: jitter %v, last %v", b.jitter, b.lastRTT)
	}
	b.updateJitter(56 * time.Millisecond)
	if b.jitter != time.Millisecond {
		t.Fatalf("40 then 56 ms: jitter %v, want 1ms", b.jitter)
	}
	b.updateJitter(40 * time.Millisecond)
	if want := time.Millisecond + (16*time.Millisecond-time.Millisecond)/16; b.jitter != want {
		t.Errorf("then 40 ms: jitter %v, want %v", b.jitter, want)
	}
}

// TestModelAggregationExact: the extra is the bytes acknowledged since
// the burst began beyond the estimate's worth, capped at 100 ms at the
// estimate and at the window; acknowledgements that keep up start a new
// burst.
func TestModelAggregationExact(t *testing.T) {
	b := probeBW() // 1 MB/s, BDP 40,000, cwnd gain 2: cap 80,000
	b.aggStart = simEpoch
	b.updateAggregation(simEpoch, rateSample{delivered: 50_000})
	if got := b.aggregation(); got != 50_000 {
		t.Fatalf("a burst of 50,000: extra %.0f", got)
	}
	// 100 ms later, 200,000 more: the burst kept up (50,000 ≤ 100,000
	// expected), so a new one starts with 200,000, capped at 80,000.
	b.updateAggregation(simEpoch.Add(100*time.Millisecond), rateSample{delivered: 250_000})
	if got := b.aggregation(); got != 80_000 || b.aggAcked != 200_000 {
		t.Fatalf("then 200,000: extra %.0f, burst %.0f", got, b.aggAcked)
	}
	b.updateAggregation(simEpoch.Add(150*time.Millisecond), rateSample{delivered: 250_000})
	if b.aggAcked != 200_000 {
		t.Errorf("nothing acknowledged: burst %.0f", b.aggAcked)
	}
	b.cwndGain = 10 // cap at 100 ms at the estimate: 100,000
	b.updateAggregation(simEpoch.Add(150*time.Millisecond), rateSample{delivered: 400_000})
	if got := b.aggregation(); got != 100_000 {
		t.Errorf("cwnd gain 10: extra %.0f, want 100,000", got)
	}
	// After 2×bbrAggRounds rounds the measure is forgotten.
	for range 2 {
		b.round += bbrAggRounds
		b.updateAggregation(simEpoch.Add(10*time.Second), rateSample{delivered: b.delivered0 + 1})
	}
	if got := b.aggregation(); got > 10 {
		t.Errorf("ten rounds later: extra %.0f", got)
	}
	s := newBBR(DefaultMTU, simEpoch)
	s.btlBw, s.minRTT = 1e6, 40*time.Millisecond
	s.aggExtra[1] = 5_000
	if got, want := s.window(), int(s.cwndGain*s.bdp()+5_000); got != want {
		t.Errorf("Startup: window %d, want %d", got, want)
	}
}

// TestModelMinRTTWindow: a sample equal to the min RTT renews it, so
// ProbeRTT comes only after ten seconds without one.
func TestModelMinRTTWindow(t *testing.T) {
	b := probeBW()
	b.minRTTStamp = simEpoch
	b.updateMinRTT(simEpoch.Add(9*time.Second), rateSample{rtt: 40 * time.Millisecond})
	b.updateMinRTT(simEpoch.Add(15*time.Second), rateSample{rtt: 50 * time.Millisecond})
	if b.mode == bbrProbeRTT || b.minRTT != 40*time.Millisecond {
		t.Fatalf("renewed at 9 s: mode %d, min RTT %v at 15 s", b.mode, b.minRTT)
	}
	b.updateMinRTT(simEpoch.Add(19*time.Second), rateSample{rtt: 50 * time.Millisecond})
	if b.mode == bbrProbeRTT {
		t.Fatal("ProbeRTT after exactly ten seconds")
	}
	b.updateMinRTT(simEpoch.Add(19*time.Second+1), rateSample{rtt: 50 * time.Millisecond})
	if b.mode != bbrProbeRTT || b.minRTT != 50*time.Millisecond {
		t.Errorf("after ten seconds: mode %d, min RTT %v", b.mode, b.minRTT)
	}
}

// competeRoundsWith runs n rounds of adaptCompete in ProbeBW with the
// given smallest RTT each round and reports whether b competes after.
func competeRoundsWith(b *bbr, n int, roundMin time.Duration) bool {
	for range n {
		b.round++
		b.roundMinRTT = roundMin
		b.adaptCompete(rateSample{})
	}
	return b.compete.on
}

// TestModelCompeteStart: the controller competes after competeRounds
// rounds of a queue deeper than half the min RTT, than 1.5× what its own
// room explains and than twice the jitter; not one round earlier, and not
// for a queue at any of those bounds.
func TestModelCompeteStart(t *testing.T) {
	const minRTT = 40 * time.Millisecond
	for _, tc := range []struct {
		name   string
		room   float64 // own queue: room / 1 MB/s
		jitter time.Duration
		queue  time.Duration
		on     bool
	}{
		{"deep", 4 * DefaultMTU, 0, minRTT/2 + 1, true},
		{"half the min RTT", 4 * DefaultMTU, 0, minRTT / 2, false},
		{"own room explains it", 20_000, 0, 30 * time.Millisecond, false}, // own 20 ms × 1.5
		{"over the own room", 20_000, 0, 30*time.Millisecond + 1, true},
		{"twice the jitter", 4 * DefaultMTU, 15 * time.Millisecond, 30 * time.Millisecond, false},
		{"over twice the jitter", 4 * DefaultMTU, 15 * time.Millisecond, 30*time.Millisecond + 1, true},
	} {
		b := probeBW()
		b.queueRoom, b.jitter = tc.room, tc.jitter
		if competeRoundsWith(b, competeRounds-1, minRTT+tc.queue) {
			t.Errorf("%s: competing after %d rounds", tc.name, competeRounds-1)
		}
		if on := competeRoundsWith(b, 1, minRTT+tc.queue); on != tc.on {
			t.Errorf("%s: competing %v, want %v", tc.name, on, tc.on)
		}
		if tc.on {
			if want := b.btlBw * (minRTT + tc.queue).Seconds(); b.compete.inflightHi != max(want, b.bdp()+b.queueRoom) {
				t.Errorf("%s: window %.0f, want the rate over the queue %.0f", tc.name, b.compete.inflightHi, want)
			}
		}
	}
	// One round without the queue takes competeResume rounds off the count.
	b := probeBW()
	b.queueRoom = 4 * DefaultMTU
	competeRoundsWith(b, competeRounds-1, minRTT+minRTT)
	competeRoundsWith(b, 1, minRTT)
	if b.compete.foreign != competeRounds-1-competeResume {
		t.Errorf("count %d after a round without the queue, want %d", b.compete.foreign, competeRounds-1-competeResume)
	}
}

// TestModelCompeteLoss: competing, a round with a loss cuts the window by
// competeBeta only while a queue stands (over a quarter of the min RTT
// and twice the jitter); otherwise the window grows by an MTU.
func TestModelCompeteLoss(t *testing.T) {
	const minRTT = 40 * time.Millisecond
	for _, tc := range []struct {
		name   string
		queue  time.Duration
		jitter time.Duration
		want   float64
	}{
		{"queue stands", minRTT/4 + 1, 0, 70_000},
		{"at the target", minRTT / 4, 0, 100_000 + DefaultMTU},
		{"jitter, not queue", minRTT/4 + 1, 6 * time.Millisecond, 100_000 + DefaultMTU},
	} {
		b := probeBW()
		b.compete.on, b.compete.inflightHi, b.jitter = true, 100_000, tc.jitter
		for i := range b.compete.roundMins {
			b.compete.roundMins[i] = minRTT + tc.queue
		}
		b.onLoss(DefaultMTU)
		competeRoundsWith(b, 1, minRTT+tc.queue)
		if b.compete.inflightHi != tc.want {
			t.Errorf("%s: window %.0f, want %.0f", tc.name, b.compete.inflightHi, tc.want)
		}
	}
}

// TestModelCompeteProbeRTTEnd: a ProbeRTT that still finds a queue over
// a quarter of the floor keeps the floor as the min RTT and the
// competition, at most competeKeepFloor-1 times in a row; one that finds
// the queue drained ends the competition and remembers its window.
func TestModelCompeteProbeRTTEnd(t *testing.T) {
	const floor = 40 * time.Millisecond
	for _, tc := range []struct {
		name   string
		minRTT time.Duration
		kept   int
		on     bool
		want   time.Duration // min RTT after
	}{
		{"queue still there", floor + floor/4 + 1, 0, true, floor},
		{"queue at the target", floor + floor/4, 0, false, floor + floor/4},
		{"kept twice already", floor + floor/2, competeKeepFloor - 1, false, floor + floor/2},
	} {
		b := probeBW()
		b.minRTT = tc.minRTT
		b.compete = competition{on: true, floor: floor, kept: tc.kept, inflightHi: 90_000, foreign: 7}
		b.competeProbeRTTDone()
		c := b.compete
		if c.on != tc.on || b.minRTT != tc.want {
			t.Errorf("%s: competing %v, min RTT %v; want %v, %v", tc.name, c.on, b.minRTT, tc.on, tc.want)
		}
		switch {
		case tc.on && c.kept != tc.kept+1:
			t.Errorf("%s: kept %d, want %d", tc.name, c.kept, tc.kept+1)
		case !tc.on && (c.kept != 0 || c.foreign != 0 || c.resumeHi != 90_000):
			t.Errorf("%s: kept %d, foreign %d, resume at %.0f", tc.name, c.kept, c.foreign, c.resumeHi)
		}
	}
	b := probeBW()
	b.compete.resumeHi = 5
	b.competeProbeRTTDone()
	if b.compete.resumeHi != 0 || b.compete.bwMax != b.btlBw {
		t.Errorf("not competing: resume at %.0f, largest estimate %.0f", b.compete.resumeHi, b.compete.bwMax)
	}
}
