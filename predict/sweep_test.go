package predict_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

// Sweep ranges: every tick rate against every round trip.
var (
	sweepRTTs  = []time.Duration{20, 50, 100, 200, 300, 400, 600}
	sweepRates = []int{20, 30, 60, 128}
)

// sweepRoom plays players bots at tickRate for d over links with imp each
// way. The clients learn the tick rate (and the game's rules), the
// snapshot interval, the baseline window and MaxAhead from the server's
// Hello only.
func sweepRoom(t testing.TB, players, tickRate int, imp impairment, d time.Duration) (*simRoom, []*predict.Client, [][]predict.Event, int) {
	cfg := predict.ServerConfig{TickRate: tickRate}
	room := newSimRoom(cfg, actiongame.New(action.Config{TickRate: tickRate}, seed))
	var sessions []*predict.Session
	var intents []predict.IntentFunc
	var clients []*predict.Client
	for p := 1; p <= players; p++ {
		conn, err := room.connect(0, predict.PlayerID(p), imp, uint64(p))
		if err != nil {
			t.Fatal(err)
		}
		c := predict.NewClientFor(predict.ClientConfig{}, func(rate int) predict.Game {
			return actiongame.New(action.Config{TickRate: rate}, 0)
		})
		sessions = append(sessions, &predict.Session{Client: c, Net: conn})
		intents = append(intents, botIntent(c, uint64(100+p)))
		clients = append(clients, c)
	}
	effects := make([][]predict.Event, players)
	for now := time.Duration(0); now < d; now += 2 * time.Millisecond {
		for i, s := range sessions {
			if err := s.Step(now, intents[i]); err != nil {
				t.Fatal(err)
			}
			effects[i] = append(effects[i], s.Client.Effects()...)
		}
	}
	errs := 0
	for _, s := range sessions {
		errs += s.Errors
	}
	return room, clients, effects, errs
}

// TestParitySweep: a lone client without loss, at every round trip from
// 20 to 600 ms and every tick rate from 20 to 128 Hz, is never corrected,
// never fails a parity check and uses every snapshot it receives (no
// delta against a baseline it lacks, none stale, none refused). This is
// what "a lone lossless client is never corrected, whatever the latency
// and tick rate" rests on.
func TestParitySweep(t *testing.T) {
	d := 6 * time.Second
	if testing.Short() {
		d = 3 * time.Second
	}
	for _, hz := range sweepRates {
		for _, ms := range sweepRTTs {
			t.Run(fmt.Sprintf("%dHz/%dms", hz, ms), func(t *testing.T) {
				imp := impairment{delay: ms * time.Millisecond / 2}
				room, clients, _, errs := sweepRoom(t, 1, hz, imp, d)
				tel := clients[0].Telemetry()
				st := room.srv.Stats()
				if errs != 0 || tel.Corrections != 0 || tel.ParityFails != 0 || tel.SnapsNoBase != 0 || tel.SnapsStale != 0 ||
					st.InputsLate != 0 || st.InputsClamped != 0 {
					t.Fatalf("%d refused, %d corrections %v, parity %d/%d failed, %d without baseline, %d stale; server: %d late, %d clamped",
						errs, tel.Corrections, tel.ByCause, tel.ParityFails, tel.ParityChecks, tel.SnapsNoBase, tel.SnapsStale, st.InputsLate, st.InputsClamped)
				}
				// Parity is checked on nearly every snapshot once predicting.
				if min := uint64(hz) * uint64(d/time.Second) / 2; tel.ParityChecks < min {
					t.Fatalf("%d parity checks, want at least %d", tel.ParityChecks, min)
				}
			})
		}
	}
}

// TestLossySweep: with 2% loss and 200 ms bursts each way, at every round
// trip and tick rate, two players shooting each other: every correction
// has its real cause (none unexplained) and every effect plays exactly
// once on each client, counted against the events the server sent it.
func TestLossySweep(t *testing.T) {
	d := 8 * time.Second
	rtts, rates := sweepRTTs, sweepRates
	if testing.Short() {
		d, rtts = 5*time.Second, []time.Duration{50, 200, 600}
	}
	for _, hz := range rates {
		for _, ms := range rtts {
			t.Run(fmt.Sprintf("%dHz/%dms", hz, ms), func(t *testing.T) {
				imp := impairment{delay: ms * time.Millisecond / 2, loss: 0.02, burst: 200 * time.Millisecond, burstEvery: 2 * time.Second}
				room, clients, effects, errs := sweepRoom(t, 2, hz, imp, d)
				if errs != 0 {
					t.Fatalf("%d messages refused", errs)
				}
				for i, c := range clients {
					tel := c.Telemetry()
					if tel.ByCause[predict.CauseUnexplained] != 0 {
						t.Fatalf("client %d: %d of %d corrections unexplained (%v)", i+1, tel.ByCause[predict.CauseUnexplained], tel.Corrections, tel.ByCause)
					}
					through := c.AnchorTick() - min(c.AnchorTick(), uint64(hz))
					checkExactlyOnce(t, i+1, effects[i], room.events[c.Player()], through)
				}
			})
		}
	}
}

// BenchmarkSweep reports, for the lossy sweep (2% loss and 200 ms bursts
// each way, two players shooting each other, 20 s of virtual time), the
// corrections per client per second and the error p99 at every tick
// rate and round trip. The figures are deterministic; run it with
// -benchtime 1x.
func BenchmarkSweep(b *testing.B) {
	for _, hz := range sweepRates {
		for _, ms := range sweepRTTs {
			b.Run(fmt.Sprintf("%dHz/rtt%d", hz, ms), func(b *testing.B) {
				imp := impairment{delay: ms * time.Millisecond / 2, loss: 0.02, burst: 200 * time.Millisecond, burstEvery: 2 * time.Second}
				const secs = 20
				for b.Loop() {
					_, clients, _, _ := sweepRoom(b, 2, hz, imp, secs*time.Second)
					var corr, unexplained uint64
					var errs predict.Histogram
					for _, c := range clients {
						t := c.Telemetry()
						corr += t.Corrections
						unexplained += t.ByCause[predict.CauseUnexplained]
						errs.Merge(&t.CorrectionError)
					}
					b.ReportMetric(float64(corr)/float64(len(clients))/secs, "corrections/client/s")
					b.ReportMetric(errs.Quantile(0.99), "err-p99")
					b.ReportMetric(float64(unexplained), "unexplained")
				}
			})
		}
	}
}
