package relay

import "testing"

func TestEWMABps(t *testing.T) {
	// alpha 0.2: 20% of a 100% late window.
	if got := ewmaBps(6554, 10_000, 0); got != 2000 {
		t.Errorf("ewma = %d, want 2000", got)
	}
	if got := ewmaBps(6554, 0, 2000); got != 1599 {
		t.Errorf("decay = %d, want 1599", got)
	}
	if got := ewmaBps(32768, 123, 9999); got != 123 {
		t.Errorf("alpha 1 = %d", got)
	}
}

// qosCore is a 2-player playing core whose QoS windows the test fills by
// hand: late ticks out of 30 per player, and a mean arrival margin.
type qosCore struct {
	*Core
	k uint64
}

func newQosCore(t *testing.T) *qosCore {
	return &qosCore{Core: newPlaying(t, Config{}, 1, 2)}
}

func (q *qosCore) window(late1, late2 int, marginUs int64) (QosAdjustmentEvent, bool) {
	for i, late := range []int{late1, late2} {
		p := q.players[i]
		m := margins{n: 30, sum: 30 * marginUs, sumSq: 30 * marginUs * marginUs}
		p.win = windowStats{ticks: 30, late: late, n: m.n, sum: m.sum, sumSq: m.sumSq, path: m}
	}
	q.k += 30
	return q.evaluateQosWindow(q.k - 1)
}

func TestQosRaiseAndCooldown(t *testing.T) {
	q := newQosCore(t)
	d0, r0 := q.Deadline(), q.RunAhead()
	// Both players late in 3 of 30 ticks: 10%, EWMA 2%, 3.6%, 4.9% > 2%.
	var raised []int
	for w := range 12 {
		if ev, ok := q.window(3, 3, 20_000); ok {
			if ev.Reason != RaiseLateRate || ev.NewDeadline != ev.OldDeadline+10*ms || ev.NewRunAhead != ev.OldRunAhead+1 {
				t.Errorf("window %d: %+v", w, ev)
			}
			raised = append(raised, w)
		}
	}
	// The first window's EWMA (2.0%) is not above 2%: raise at windows
	// 3 (2nd, 3rd, 4th above), then 2 of cooldown and 3 more each time.
	if want := []int{3, 8}; len(raised) < 2 || raised[0] != want[0] || raised[1] != want[1] {
		t.Errorf("raised after windows %v, want %v...", raised, want)
	}
	if q.Deadline() > Ranked().DeadlineMax || q.RunAhead() > Ranked().RunAheadMax {
		t.Errorf("beyond the profile: %v %d", q.Deadline(), q.RunAhead())
	}
	if q.Deadline() <= d0 || q.RunAhead() <= r0 {
		t.Error("never raised")
	}
}

func TestQosLowersOnlyWithCushion(t *testing.T) {
	q := newQosCore(t)
	d0 := q.Deadline()
	for range 20 {
		if _, ok := q.window(0, 0, 6_000); ok { // 6 ms: the step would leave 1 ms
			t.Fatal("lowered without a cushion")
		}
	}
	var lowered []int
	for w := range 20 {
		if ev, ok := q.window(0, 0, 40_000); ok {
			if ev.Reason != LowerStableWindow || ev.NewDeadline != ev.OldDeadline-5*ms {
				t.Errorf("%+v", ev)
			}
			lowered = append(lowered, w)
		}
	}
	if len(lowered) != 2 || lowered[0] != 7 || lowered[1] != 17 {
		t.Errorf("lowered after windows %v, want [7 17] (8 stable windows, 2 of cooldown)", lowered)
	}
	if q.Deadline() != d0-10*ms {
		t.Errorf("deadline %v", q.Deadline())
	}
}

// TestQosLowersOnPathNotArrival: a player whose submissions arrive with
// a large margin only because its client sends them early (its submit
// offset makes up for a path longer than the deadline) has no path
// cushion, and the deadline does not fall further below its path.
func TestQosLowersOnPathNotArrival(t *testing.T) {
	for _, farPath := range []int64{-10_000, 40_000} {
		q := newQosCore(t)
		lowered := 0
		for range 30 {
			for i, path := range []int64{40_000, farPath} {
				arrival := margins{n: 30, sum: 30 * 40_000, sumSq: 30 * 40_000 * 40_000}
				q.players[i].win = windowStats{ticks: 30, n: arrival.n, sum: arrival.sum, sumSq: arrival.sumSq,
					path: margins{n: 30, sum: 30 * path, sumSq: 30 * path * path}}
			}
			q.k += 30
			if _, ok := q.evaluateQosWindow(q.k - 1); ok {
				lowered++
			}
		}
		if (lowered > 0) != (farPath > 0) {
			t.Errorf("player 2's path margin %d µs (arrival margin 40 ms): lowered %d times", farPath, lowered)
		}
	}
}

// TestQosInfluenceCap: one player late in every tick cannot drive the
// match's late rate by more than its 40% share.
func TestQosInfluenceCap(t *testing.T) {
	q := newQosCore(t)
	q.window(30, 0, 20_000)
	// Capped late count ceil(30 * 0.4) = 12 of 60 ticks: 2000 bps, EWMA 400.
	if got := q.QosState().EWMALateRateBps; got != 400 {
		t.Errorf("EWMA %d bps, want 400", got)
	}
}

// TestQosExcludesUnexplainedLateness: a player flagged for lateness its
// path does not explain is left out of the late rate for a while.
func TestQosExcludesUnexplainedLateness(t *testing.T) {
	q := newQosCore(t)
	q.players[0].win.flagged = true
	q.players[0].win.late, q.players[0].win.ticks = 30, 30
	q.players[1].win = windowStats{ticks: 30, n: 30, sum: 30 * 20_000, sumSq: 30 * 20_000 * 20_000}
	q.endWindow(29)
	if got := q.QosState().EWMALateRateBps; got != 0 {
		t.Errorf("EWMA %d bps, want 0", got)
	}
	if q.players[0].excluded != qosExcludeWindows {
		t.Errorf("excluded for %d windows", q.players[0].excluded)
	}
}
