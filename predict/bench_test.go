package predict_test

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

// busyRules make 16 players keep about 200 projectiles in the air: quick
// cheap casts, long-lived projectiles, an open arena.
var busyRules = action.Config{NoColliders: true, ArenaSize: 128, CastCooldown: 4, CastCost: 1, ProjectileLife: 120}

// BenchmarkServerTick measures the authoritative loop per tick with 16
// players and about 200 live projectiles: each tick takes one input
// message from every client (acknowledging the previous snapshot), steps
// the game and encodes acks, events and 16 delta snapshots.
func BenchmarkServerTick(b *testing.B) {
	g := actiongame.New(busyRules, 1)
	srv := predict.NewServer(predict.ServerConfig{}, g)
	const players = 16
	bots := make([]*action.Bot, players)
	for p := range players {
		if err := srv.Join(0, predict.PlayerID(p+1)); err != nil {
			b.Fatal(err)
		}
		bots[p] = action.NewBot(uint64(p))
	}
	interval := srv.Config().Interval()
	var seq, act [players]uint32
	var buf []byte
	var m predict.InputMessage
	var snapBytes int
	tick := func() {
		t := srv.ServerTick() + 1
		for p := range players {
			in := actiongame.Intent(bots[p].Input(g.W, action.PlayerID(p+1)))
			seq[p]++
			in.Sequence, in.ClientTick, in.IntendedTick = seq[p], t, t
			for i := range in.Actions {
				act[p]++
				in.Actions[i].Sequence = act[p]
			}
			m = predict.InputMessage{Player: predict.PlayerID(p + 1), AckedSnap: t - 1, Inputs: append(m.Inputs[:0], in)}
			buf, _ = m.Append(buf[:0])
			if err := srv.Receive(time.Duration(t-1)*interval, predict.PlayerID(p+1), buf); err != nil {
				b.Fatal(err)
			}
		}
		srv.Tick(time.Duration(t) * interval)
		snapBytes = 0
		for _, o := range srv.Ready().Messages {
			if o.Lane == predict.LaneUnreliable {
				snapBytes += len(o.Data)
			}
		}
		srv.Advance()
	}
	for range 600 { // warm up to a steady number of projectiles
		tick()
	}
	b.ReportAllocs()
	live, n := 0, 0
	for b.Loop() {
		tick()
		live += len(g.W.Entities()) - players
		n++
	}
	b.ReportMetric(float64(live)/float64(n), "projectiles")
	b.ReportMetric(float64(snapBytes)/players, "snapshot-B/client/tick")
}

// BenchmarkReconcile measures a client's reconciliation per snapshot
// (rebuild from the delta, restore the anchor, replay the unacknowledged
// inputs) at 60 Hz in a 16-player match of the reference game, at the
// round trips that make a replay about 10 and about 30 ticks deep (the
// replay-depth metric is the measured mean).
func BenchmarkReconcile(b *testing.B) {
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{{"depth10", 75 * time.Millisecond}, {"depth30", 230 * time.Millisecond}} {
		b.Run(tc.name, func(b *testing.B) { benchReconcile(b, tc.delay) })
	}
}

func benchReconcile(b *testing.B, delay time.Duration) {
	room := newSimRoom(predict.ServerConfig{}, actiongame.New(action.Config{}, seed))
	const players = 16
	imp := impairment{delay: delay}
	var sessions []*predict.Session
	var intents []predict.IntentFunc
	for p := 1; p <= players; p++ {
		conn, err := room.connect(0, predict.PlayerID(p), imp, uint64(p))
		if err != nil {
			b.Fatal(err)
		}
		c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
		sessions = append(sessions, &predict.Session{Client: c, Net: &timedConn{simConn: conn}})
		intents = append(intents, botIntent(c, uint64(100+p)))
	}
	watched := sessions[0].Net.(*timedConn)
	now := time.Duration(0)
	step := func() {
		now += 2 * time.Millisecond
		for i, s := range sessions {
			if err := s.Step(now, intents[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	for now < 5*time.Second {
		step()
	}
	c := sessions[0].Client
	base := c.Telemetry().ReplayDepth
	watched.spent, watched.snaps = 0, 0
	b.ResetTimer()
	for b.Loop() {
		for n := watched.snaps; watched.snaps == n; {
			step()
		}
	}
	b.StopTimer()
	depth := c.Telemetry().ReplayDepth
	b.ReportMetric(float64(watched.spent.Nanoseconds())/float64(watched.snaps), "ns/snapshot")
	b.ReportMetric((depth.Sum()-base.Sum())/float64(depth.Count()-base.Count()), "replay-depth")
}

// timedConn times the client's handling of each snapshot it delivers.
type timedConn struct {
	*simConn
	spent time.Duration
	snaps int
}

func (t *timedConn) Poll(now time.Duration, deliver func([]byte)) error {
	return t.simConn.Poll(now, func(m []byte) {
		if typ, _ := predict.TypeOf(m); typ != predict.TypeSnapshot {
			deliver(m)
			return
		}
		start := time.Now()
		deliver(m)
		t.spent += time.Since(start)
		t.snaps++
	})
}

// BenchmarkNetwork plays 8 bots for 30 s of virtual time and reports
// bandwidth per client, and the corrections and their error: at 30 and
// 60 Hz without loss, and at 60 Hz with 100 ms RTT, ±10 ms jitter and 2%
// loss each way. The figures are deterministic; run it with -benchtime 1x.
func BenchmarkNetwork(b *testing.B) {
	for _, tc := range []struct {
		name string
		hz   int
		imp  impairment
	}{
		{"30Hz/rtt100/loss0", 30, impairment{delay: 50 * time.Millisecond}},
		{"60Hz/rtt100/loss0", 60, impairment{delay: 50 * time.Millisecond}},
		{"60Hz/rtt100/loss2", 60, impairment{delay: 50 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.02}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const players, secs = 8, 30
			for b.Loop() {
				clients := runSimRules(b, players, tc.imp, secs*time.Second, predict.ServerConfig{TickRate: tc.hz}, action.Config{TickRate: tc.hz})
				var up, down, corr, hard uint64
				var errs, depth predict.Histogram
				var causes [predict.NumCauses]uint64
				for _, c := range clients {
					t := c.Telemetry()
					up += t.BytesUp
					down += t.BytesDown
					corr += t.Corrections
					hard += t.HardSnaps
					errs.Merge(&t.CorrectionError)
					depth.Merge(&t.ReplayDepth)
					for k := range causes {
						causes[k] += t.ByCause[k]
					}
				}
				per := float64(players * secs)
				b.ReportMetric(float64(up)/per, "up-B/client/s")
				b.ReportMetric(float64(down)/per, "down-B/client/s")
				b.ReportMetric(float64(corr)/per, "corrections/client/s")
				b.ReportMetric(float64(causes[predict.CauseLateInput])/per, "late-input/client/s")
				b.ReportMetric(float64(causes[predict.CauseInteraction])/per, "interaction/client/s")
				b.ReportMetric(float64(causes[predict.CauseUnexplained]), "unexplained")
				b.ReportMetric(float64(hard), "hard-snaps")
				b.ReportMetric(errs.Mean(), "err-mean")
				b.ReportMetric(errs.Quantile(0.5), "err-p50")
				b.ReportMetric(errs.Quantile(0.99), "err-p99")
				b.ReportMetric(depth.Quantile(0.99), "replay-depth-p99")
			}
		})
	}
}
