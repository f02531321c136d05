package relay

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

const ms = time.Millisecond

func TestPercentileNearestRank(t *testing.T) {
	var v []time.Duration
	for i := 1; i <= 10; i++ {
		v = append(v, time.Duration(i)*ms)
	}
	for p, want := range map[int]time.Duration{1: 1 * ms, 5: 1 * ms, 50: 5 * ms, 90: 9 * ms, 95: 10 * ms, 100: 10 * ms} {
		if got := percentile(v, p); got != want {
			t.Errorf("p%d = %v, want %v", p, got, want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing")
	}
}

// TestMatchEnvelope works the seed's formula by hand for four players, one
// of them far worse than the rest.
func TestMatchEnvelope(t *testing.T) {
	per := []PlayerCalibration{
		{Player: 1, OneWayP95: 20 * ms, Jitter: 2 * ms},
		{Player: 2, OneWayP95: 30 * ms, Jitter: 4 * ms},
		{Player: 3, OneWayP95: 40 * ms, Jitter: 6 * ms},
		{Player: 4, OneWayP95: 200 * ms, Jitter: 100 * ms},
	}
	got := matchEnvelope(per, Ranked(), time.Second/30)
	// Medians (nearest rank): one-way 30 ms, jitter 4 ms. Clipped: one-way
	// [20 30 40 70], jitter [2 4 6 24]; p90 = 70 and 24;
	// 70 + 2*24 + 10 = 128 ms; run-ahead ceil(128 / 33.3) = 4.
	if got.InitialTickDeadline != 128*ms || got.SharedInitialRunAhead != 4 {
		t.Errorf("deadline %v run-ahead %d, want 128ms and 4", got.InitialTickDeadline, got.SharedInitialRunAhead)
	}
	// Only the far player must send early: 200 + 2*100 - 128.
	for i, want := range []time.Duration{0, 0, 0, 272 * ms} {
		if got.PerPlayer[i].SubmitOffset != want {
			t.Errorf("player %d submit offset %v, want %v", i+1, got.PerPlayer[i].SubmitOffset, want)
		}
	}
}

func TestMatchEnvelopeClampsToProfile(t *testing.T) {
	low := matchEnvelope([]PlayerCalibration{{OneWayP95: ms}}, Ranked(), time.Second/30)
	if low.InitialTickDeadline != 30*ms || low.SharedInitialRunAhead != 2 {
		t.Errorf("LAN match: %v, %d; want the profile floor 30ms and 2", low.InitialTickDeadline, low.SharedInitialRunAhead)
	}
	high := matchEnvelope([]PlayerCalibration{{OneWayP95: 400 * ms, Jitter: 100 * ms}}, Ranked(), time.Second/30)
	if high.InitialTickDeadline != 200*ms || high.SharedInitialRunAhead != 7 {
		t.Errorf("bad match: %v, %d; want the ceiling 200ms and ceil(200/33.3) = 7", high.InitialTickDeadline, high.SharedInitialRunAhead)
	}
	casual := matchEnvelope([]PlayerCalibration{{OneWayP95: 400 * ms, Jitter: 100 * ms}}, Casual(), time.Second/30)
	if casual.InitialTickDeadline != 350*ms || casual.SharedInitialRunAhead != 11 {
		t.Errorf("casual: %v, %d; want 350ms and 11", casual.InitialTickDeadline, casual.SharedInitialRunAhead)
	}
}

func TestCalibratePlayer(t *testing.T) {
	// The clock offset comes from the samples with the lower half of the
	// RTTs: the slow ones (a queue on one direction) would skew it.
	samples := []pingSample{
		{rtt: 40 * ms, offset: 100 * ms}, {rtt: 42 * ms, offset: 101 * ms}, {rtt: 41 * ms, offset: 99 * ms},
		{rtt: 90 * ms, offset: 125 * ms}, {rtt: 95 * ms, offset: 127 * ms},
	}
	pc := calibratePlayer(protocol.PlayerID(3), samples)
	if pc.MedianRTT != 42*ms || pc.EstimatedOneWay != 21*ms || pc.ClockOffset != 100*ms {
		t.Errorf("rtt %v one-way %v offset %v; want 42ms, 21ms, 100ms", pc.MedianRTT, pc.EstimatedOneWay, pc.ClockOffset)
	}
	if pc.Jitter != 55*ms || pc.OneWayP95 != 47500*time.Microsecond || pc.Samples != 5 {
		t.Errorf("jitter %v p95 %v samples %d", pc.Jitter, pc.OneWayP95, pc.Samples)
	}
}

// TestCalibrationExchange runs the ping exchange through the simulated
// network: 20 pings, the MatchTiming with the measured clock offset, and
// the timing derived from the paths.
func TestCalibrationExchange(t *testing.T) {
	n, err := newSimNet(Config{}, []protocol.PlayerID{1, 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// The clients' clocks read 5 s and 300 ms ahead of the relay's.
	n.clients[0].up, n.clients[0].down, n.clients[0].trueOff = 30*ms, 30*ms, -5*time.Second
	n.clients[1].up, n.clients[1].down, n.clients[1].trueOff = 50*ms, 50*ms, -300*ms
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	for i, want := range []time.Duration{-5 * time.Second, -300 * ms} {
		st, _ := n.core.Player(n.clients[i].id)
		if st.Calibration.Samples < 15 || st.Calibration.ClockOffset != want || n.clients[i].estOff != want {
			t.Errorf("player %d: %+v, client offset %v", i+1, st.Calibration, n.clients[i].estOff)
		}
	}
	// One-way p95 [30 50] → p90 50; no jitter; 50 + 10 = 60 ms → 2 ticks.
	if n.core.Deadline() != 60*ms || n.core.RunAhead() != 2 {
		t.Errorf("deadline %v run-ahead %d", n.core.Deadline(), n.core.RunAhead())
	}
}

// TestCalibrationTimeout: a player that answers no ping is removed when
// calibration gives up; the others go on.
func TestCalibrationTimeout(t *testing.T) {
	n, _ := newSimNet(Config{}, []protocol.PlayerID{1, 2}, 5)
	n.clients[1].silent = true
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	if st, _ := n.core.Player(2); st.Status != StatusRemoved {
		t.Errorf("silent player %v", st.Status)
	}
	if n.core.Phase() != PhasePlaying || n.now > 12*time.Second {
		t.Errorf("phase %v at %v", n.core.Phase(), n.now)
	}
}
