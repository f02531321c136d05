package lockstepserver

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/room"
)

func reportRoom(t *testing.T, size int) *lockstepRoom {
	t.Helper()
	seats := make([]room.Seat, size)
	for i := range seats {
		seats[i].Player = protocol.PlayerID(i + 1)
	}
	r, err := New(Config{}).newRoom(room.Params{Name: "r", Seats: seats, TickRate: 30, Clock: func() time.Duration { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// flags are the flags of player p's order_arrival points.
func flags(rep room.Report, p int) []string {
	var out []string
	for _, s := range rep.Series {
		if s.Name == ArrivalSeries && s.Player == p {
			for _, pt := range s.Points {
				out = append(out, pt.Flag)
			}
		}
	}
	return out
}

// TestReport: a late submission is a "late" point with its lateness, a
// frame without a player's on-time submission an "idle" point (not for
// a player gone), events keep their kinds, the rings stay bounded and a
// report shares no memory with the room.
func TestReport(t *testing.T) {
	r := reportRoom(t, 3)
	r.members[2].gone = true
	r.rep.onTime[0][7%onTimeWindow] = 7 + 1 // player 1 was on time for tick 7
	r.recordEvent(relay.LateSubmission{Player: 2, Tick: 6, LateBy: 15 * time.Millisecond})
	r.sent(&msg.TickFrame{Tick: 7, Flags: msg.FlagSyncRequest})
	r.recordEvent(relay.QosAdjustmentEvent{Tick: 7, NewRunAhead: 3, Reason: relay.RaiseLateRate})
	r.recordEvent(relay.Desync{Tick: 7})
	rep := r.Report(0)
	if got := flags(rep, 1); len(got) != 0 {
		t.Errorf("player 1 (on time): %v", got)
	}
	if got := flags(rep, 2); len(got) != 2 || got[0] != "late" || got[1] != "idle" {
		t.Errorf("player 2: %v, want [late idle]", got)
	}
	if got := flags(rep, 3); len(got) != 0 {
		t.Errorf("player 3 (gone): %v", got)
	}
	if v := rep.Series[1].Points[0].Value; v != 15 {
		t.Errorf("late point value %v, want 15 (ms)", v)
	}
	want := map[string]float64{"late_orders": 1, "idle_substitutions": 1, "sync_checks": 1, "desyncs": 1, "qos_adjustments": 1}
	for _, c := range rep.Counters {
		if w, ok := want[c.Name]; ok && c.Value != w {
			t.Errorf("%s = %v, want %v", c.Name, c.Value, w)
		}
	}
	if len(rep.Events) != 2 || rep.Events[0].Kind != "qos" || rep.Events[1].Kind != "desync" {
		t.Errorf("events %+v", rep.Events)
	}

	for k := range uint64(10 * arrivalHistory) {
		r.recordEvent(relay.LateSubmission{Player: 1, Tick: 100 + k})
		r.recordEvent(relay.Strike{Player: 1, Strikes: 1})
	}
	later := r.Report(0)
	if n := len(later.Series[0].Points); n != arrivalHistory {
		t.Errorf("%d arrivals kept, want %d", n, arrivalHistory)
	}
	if n := len(later.Events); n != eventHistory {
		t.Errorf("%d events kept, want %d", n, eventHistory)
	}
	if rep.Series[1].Points[0].Flag != "late" || len(rep.Events) != 2 {
		t.Error("an earlier report changed with the room")
	}
}
