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
