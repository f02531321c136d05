package transport

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// bbrFlow drives a model-based controller with the acknowledgements of a
// flow that delivers rate bytes per second in mtu-sized datagrams over a
// path of min RTT minRTT plus a uniform jitter of up to jitter, losing
// each datagram with probability loss (the loss is reported, the
// delivery rate stays: the path has no queue).
type bbrFlow struct {
	b           *bbr
	now         time.Time
	delivered   uint64
	rate        float64
	minRTT      time.Duration
	jitter      time.Duration
	loss        float64
	appLimited  bool
	rng         *rand.Rand
	history     []uint64 // delivered count at each ack, to find one RTT ago
	historyTime []time.Time
}

func newBBRFlow(rate float64, minRTT, jitter time.Duration, loss float64, seed uint64) *bbrFlow {
	return &bbrFlow{b: newBBR(DefaultMTU, simEpoch), now: simEpoch, rate: rate, minRTT: minRTT,
		jitter: jitter, loss: loss, rng: rand.New(rand.NewPCG(seed, 1))}
}

// ack advances by one datagram's time at the rate and feeds one sample.
func (f *bbrFlow) ack() {
	f.now = f.now.Add(time.Duration(float64(DefaultMTU) / f.rate * float64(time.Second)))
	if f.rng.Float64() < f.loss {
		f.b.onLoss(DefaultMTU)
		return
	}
	rtt := f.minRTT
	if f.jitter > 0 {
		rtt += time.Duration(f.rng.Int64N(int64(f.jitter)))
	}
	f.delivered += DefaultMTU
	// The datagram acknowledged now was sent rtt ago: the delivered count
	// then is its priorDelivered.
	prior := uint64(0)
	sent := f.now.Add(-rtt)
	if i := sort.Search(len(f.historyTime), func(i int) bool { return f.historyTime[i].After(sent) }); i > 0 {
		prior = f.history[i-1]
	}
	f.history = append(f.history, f.delivered)
	f.historyTime = append(f.historyTime, f.now)
	f.b.onAck(f.now, rateSample{rate: f.rate, rtt: rtt, appLimited: f.appLimited, priorDelivered: prior,
		delivered: f.delivered, inFlight: int(f.rate * rtt.Seconds())})
}

// TestModelRandomLossIsNotCongestion is point 3 of the congestion issue
// as a property over paths: random loss without a queue (the delivery
// rate stays and the RTT does not rise above the path's jitter) never
// turns the controller to loss-based competition, never takes its
// estimate below the delivery rate, and never its window below the
// delivery rate times the min RTT, whatever the loss, the jitter and the
// rate. It is a sweep: every combination below.
func TestModelRandomLossIsNotCongestion(t *testing.T) {
	for _, rate := range []float64{50e3, 1e6, 3e6} {
		for _, minRTT := range []time.Duration{200 * time.Microsecond, 2 * time.Millisecond, 10 * time.Millisecond, 80 * time.Millisecond, 300 * time.Millisecond} {
			for _, jitter := range []time.Duration{0, 10 * time.Millisecond, 40 * time.Millisecond} {
				for _, loss := range []float64{0, 0.02, 0.1, 0.3} {
					name := fmt.Sprintf("%.0fB/s_%v+%v_%g", rate, minRTT, jitter, loss)
					f := newBBRFlow(rate, minRTT, jitter, loss, 1)
					// Long enough for a few hundred rounds and a ProbeRTT.
					n := int(rate * 12 / DefaultMTU)
					for i := range n {
						f.ack()
						if i < n/4 {
							continue // Startup
						}
						b := f.b
						if b.compete.on {
							t.Fatalf("%s: competing after %d acknowledgements", name, i)
						}
						if b.btlBw < 0.95*rate {
							t.Fatalf("%s: estimate %.0f below the delivery rate", name, b.btlBw)
						}
						if b.mode != bbrProbeRTT && float64(b.window()) < rate*minRTT.Seconds() {
							t.Fatalf("%s: window %d below the delivery rate times the min RTT", name, b.window())
						}
					}
				}
			}
		}
	}
}

// TestModelAppLimitedPacing is point 2: an application-limited flow is
// never paced below its own rate. The handshake's few datagrams give a
// tiny estimate; Startup still paces at least at its initial rate and
// keeps its initial window, and in ProbeBW an application-limited flow
// paces at least at the estimate, even in the draining phase.
func TestModelAppLimitedPacing(t *testing.T) {
	f := newBBRFlow(500, 100*time.Millisecond, 0, 0, 1) // 500 B/s: a handshake and pings
	f.appLimited = true
	for range 20 {
		f.ack()
		if got, want := f.b.pacingRate(), f.b.initialRate(); got < want {
			t.Fatalf("paced at %.0f B/s, below the initial %.0f", got, want)
		}
		if got, want := f.b.window(), bbrInitWindowMTU*DefaultMTU; got < want {
			t.Fatalf("window %d, below the initial %d", got, want)
		}
	}
	f = newBBRFlow(1e6, 40*time.Millisecond, 0, 0.05, 2)
	for range 20_000 {
		f.ack()
	}
	if f.b.mode != bbrProbeBW {
		t.Fatalf("mode %d after 20,000 acknowledgements", f.b.mode)
	}
	f.appLimited = true
	for range 20_000 {
		f.ack()
		if f.b.mode == bbrProbeBW && f.b.pacingRate() < f.b.btlBw {
			t.Fatalf("application-limited, paced at %.0f B/s below the estimate %.0f (gain %g)", f.b.pacingRate(), f.b.btlBw, f.b.gain)
		}
	}
}

// TestModelInitialRate: before an estimate the pacing rate is Startup's
// gain times 10 MTUs per min RTT (per 100 ms before an RTT sample), and
// Startup's window at least that rate times the min RTT.
func TestModelInitialRate(t *testing.T) {
	b := newBBR(DefaultMTU, simEpoch)
	if got, want := b.pacingRate(), bbrStartupGain*10*DefaultMTU/0.1; got != want {
		t.Errorf("no sample: paced at %.0f B/s, want %.0f", got, want)
	}
	b.onAck(simEpoch.Add(50*time.Millisecond), rateSample{rate: 100, rtt: 50 * time.Millisecond, appLimited: true, delivered: 5})
	if got, want := b.pacingRate(), bbrStartupGain*10*DefaultMTU/0.05; got != want {
		t.Errorf("min RTT 50 ms: paced at %.0f B/s, want %.0f", got, want)
	}
	if got, want := b.window(), int(bbrStartupGain*10*DefaultMTU); got != want {
		t.Errorf("window %d, want %d", got, want)
	}
}

// TestModelCompeteWindow: competing, the window is inflightHi and the
// pacing keeps up with it over the min RTT.
func TestModelCompeteWindow(t *testing.T) {
	b := newBBR(DefaultMTU, simEpoch)
	b.mode, b.filled, b.gain = bbrProbeBW, true, 1
	b.btlBw, b.minRTT = 1e6, 40*time.Millisecond
	b.compete.on, b.compete.inflightHi = true, 100_000
	if got := b.window(); got != 100_000 {
		t.Errorf("window %d, want inflightHi 100000", got)
	}
	if got, want := b.pacingRate(), 100_000/0.04; got != want {
		t.Errorf("paced at %.0f B/s, want %.0f", got, want)
	}
	b.compete.on = false
	if got := b.window(); got != int(b.bdp()+b.queueRoom) {
		t.Errorf("not competing: window %d, want the BDP plus room %.0f", got, b.bdp()+b.queueRoom)
	}
}

// TestModelAggregation: acknowledgements that come in bursts (every
// 20 ms, a burst's worth at once) grow the window by about what a burst
// delivers beyond the estimate; smooth ones leave it alone.
func TestModelAggregation(t *testing.T) {
	f := newBBRFlow(1e6, 40*time.Millisecond, 0, 0, 3)
	for range 20_000 {
		f.ack()
	}
	if f.b.mode != bbrProbeBW || f.b.aggregation() > 2*DefaultMTU {
		t.Fatalf("smooth acknowledgements: mode %d, aggregation %.0f", f.b.mode, f.b.aggregation())
	}
	smooth := f.b.window()
	// Now the same rate acknowledged in bursts every 20 ms.
	const burst = 20 * time.Millisecond
	per := int(f.rate * burst.Seconds() / DefaultMTU)
	for range 200 {
		f.now = f.now.Add(burst)
		for range per {
			f.delivered += DefaultMTU
			f.b.onAck(f.now, rateSample{rate: f.rate, rtt: f.minRTT + burst/2, priorDelivered: f.delivered - uint64(f.rate*f.minRTT.Seconds()),
				delivered: f.delivered, inFlight: int(f.rate * f.minRTT.Seconds())})
		}
	}
	agg := f.b.aggregation()
	if want := 0.5 * f.rate * burst.Seconds(); agg < want {
		t.Errorf("bursts of %v: aggregation %.0f, want at least %.0f", burst, agg, want)
	}
	if f.b.mode == bbrProbeBW && float64(f.b.window()) < float64(smooth)+agg/2 {
		t.Errorf("bursts: window %d, smooth %d, aggregation %.0f", f.b.window(), smooth, agg)
	}
}
