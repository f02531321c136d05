package room_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/server/room"
)

// reporting is a counter that reports its tick count.
type reporting struct {
	counter
	reports int
}

func (c *reporting) Report(time.Duration) room.Report {
	c.reports++
	return room.Report{Counters: []room.Figure{{Name: "ticks", Value: float64(c.n)}}}
}

// TestDriverPublishesReport: the published status carries the Core's
// report (room.Reporter), the tick budget and the last turns' times,
// at most TurnHistory of them however long the room runs, once per
// StatusInterval.
func TestDriverPublishesReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &reporting{counter: counter{ended: map[int]error{}}}
		epoch := time.Now()
		d := room.NewDriver(room.Params{Name: "r", Inbox: room.NewInbox(), TickRate: 50,
			Clock: func() time.Duration { return time.Since(epoch) }}, core)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- d.Run(ctx) }()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		st := d.Status()
		if st.Report == nil || len(st.Report.Counters) != 1 || st.Report.Counters[0].Value < 400 {
			t.Errorf("report %+v", st.Report)
		}
		if st.Budget != 20*time.Millisecond {
			t.Errorf("budget %v, want 20ms", st.Budget)
		}
		if len(st.Turns) != room.TurnHistory {
			t.Errorf("%d turn times, want %d", len(st.Turns), room.TurnHistory)
		}
		// A turn's time is the processing it took, within the tick budget
		// (the bubble's clock stands still while a turn runs).
		for _, turn := range st.Turns {
			if turn < 0 || turn >= st.Budget {
				t.Errorf("turn time %v outside [0, %v)", turn, st.Budget)
				break
			}
		}
		cancel()
		<-done
		// One status a StatusInterval over 5 s (at 0, 1 s, ... 5 s), and
		// the last one at the end.
		if core.reports != 7 {
			t.Errorf("%d reports, want 7", core.reports)
		}
	})
}
