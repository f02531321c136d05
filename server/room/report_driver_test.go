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
// at most TurnHistory of them however long the room runs.
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
		cancel()
		<-done
	})
}
