package relay

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// TestFairness is the sub-tick fairness claim: two clients, 20 ms and
// 150 ms away with jittery paths and clocks off by different amounts, go
// through calibration and then each issue an order at the same true
// instant 1,000 times. After the relay's normalisation the far one's order
// comes first in about half of the contests; by arrival order it would
// never come first.
func TestFairness(t *testing.T) {
	const (
		near, far = protocol.PlayerID(1), protocol.PlayerID(2)
		contests  = 1000
		firstTick = 20
		// spacing separates contests by more than the clock estimators'
		// memory (a gain of 1/8 per tick), so their outcomes are nearly
		// independent: 1,000 contests over a five-minute match.
		spacing = 10
	)
	cfg := Config{Profile: Ranked()}
	// The shared deadline must cover the far path for its orders to be on
	// time at all; the ranked profile's outlier clip would cut a two-player
	// match down to the near one's latency.
	cfg.Profile.OneWayClip = 200 * time.Millisecond
	n, err := newSimNet(cfg, []protocol.PlayerID{near, far}, 7)
	if err != nil {
		t.Fatal(err)
	}
	cn, cf := n.client(near), n.client(far)
	cn.up, cn.down, cn.jitter, cn.trueOff = 20*time.Millisecond, 20*time.Millisecond, 4*time.Millisecond, 37*time.Millisecond
	cf.up, cf.down, cf.jitter, cf.trueOff = 150*time.Millisecond, 150*time.Millisecond, 4*time.Millisecond, -120*time.Millisecond

	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	if n.core.Phase() != PhasePlaying {
		t.Fatalf("phase %v after calibration and seed", n.core.Phase())
	}
	t.Logf("deadline %v, run-ahead %d", n.core.Deadline(), n.core.RunAhead())
	// Contest i: both issue Move{unit i} at the same instant, uniformly
	// placed in tick firstTick+i*spacing's window.
	for i := range contests {
		at := n.core.timeline.windowStart(int64(firstTick+i*spacing)) + time.Duration(n.rng.Int64N(int64(n.core.TickInterval())))
		o := protocol.Move{Units: []protocol.EntityID{protocol.EntityID(i)}}
		n.issue(cn, at, o)
		n.issue(cf, at, o)
	}

	type place struct {
		tick   uint64
		index  int
		seen   bool
		arrive time.Duration
	}
	var got [contests][2]place // [contest][near, far]
	slot := func(id protocol.PlayerID) int { return int(id - near) }
	n.onFrame = func(f *msg.TickFrame) {
		for i, o := range f.Orders {
			if m, ok := o.Order.(protocol.Move); ok {
				p := &got[m.Units[0]][slot(o.Player)]
				p.tick, p.index, p.seen = f.Tick, i, true
			}
		}
	}
	n.onSubmit = func(id protocol.PlayerID, s *msg.OrderSubmit) {
		for _, o := range s.Orders {
			if m, ok := o.Order.(protocol.Move); ok {
				got[m.Units[0]][slot(id)].arrive = n.now
			}
		}
	}
	last := uint64(firstTick + contests*spacing + 2)
	n.runUntil(10*time.Minute, func() bool { return n.core.NextTick() > last })

	farFirst, farArrivedFirst := 0, 0
	for i, g := range got {
		if !g[0].seen || !g[1].seen {
			t.Fatalf("contest %d: an order was not forwarded (near %v, far %v)", i, g[0].seen, g[1].seen)
		}
		if g[1].tick < g[0].tick || g[1].tick == g[0].tick && g[1].index < g[0].index {
			farFirst++
		}
		if g[1].arrive < g[0].arrive {
			farArrivedFirst++
		}
	}
	for _, id := range []protocol.PlayerID{near, far} {
		st, _ := n.core.Player(id)
		if st.LateSubmissions > 0 || st.Suspicious > 0 || st.Strikes > 0 {
			t.Errorf("player %d: late %d, suspicious %d, strikes %d; want none", id, st.LateSubmissions, st.Suspicious, st.Strikes)
		}
	}
	pct := func(k int) float64 { return 100 * float64(k) / contests }
	t.Logf("far player first: %.1f%% normalised, %.1f%% by arrival order (%d contests)", pct(farFirst), pct(farArrivedFirst), contests)
	if farFirst < contests*45/100 || farFirst > contests*55/100 {
		t.Errorf("far player first in %d of %d contests, want 50%% ± 5%%", farFirst, contests)
	}
	if farArrivedFirst != 0 {
		t.Errorf("far player arrived first in %d contests; the paths should make that impossible", farArrivedFirst)
	}
}
