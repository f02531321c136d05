package predictserver

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/transport"
)

// TestReportCorrections: the room shows what its players report of their
// corrections: per player, corrections per second between the room's
// reports and the error distribution; a report a seat sends as another
// player changes nothing.
func TestReportCorrections(t *testing.T) {
	p := room.Params{Name: "r", Seats: []room.Seat{{Player: 1}, {Player: 2}}, TickRate: 60, Clock: func() time.Duration { return 0 }}
	r, err := newRoom(p, predict.ServerConfig{}, actiongame.New(action.Config{}, 1), &counters{})
	if err != nil {
		t.Fatal(err)
	}
	send := func(at time.Duration, seat int, m predict.CorrectionReport) {
		b, err := m.Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Handle(at, &room.Inbound{Seat: seat, At: at, Msg: transport.Message{Data: b}})
	}
	rate := func(rep room.Report, player int) []float64 {
		var out []float64
		for _, s := range rep.Series {
			if s.Name == CorrectionRateSeries && s.Player == player {
				for _, pt := range s.Points {
					out = append(out, pt.Value)
				}
			}
		}
		return out
	}
	if rep := r.Report(0); len(rep.Histograms) != 0 || len(rate(rep, 1)) != 0 {
		t.Fatalf("figures before any report: %+v", rep)
	}
	send(time.Second, 0, predict.CorrectionReport{Player: 1, Corrections: 10, Errors: [predict.NumErrorBuckets]uint64{2: 7, 8: 1}})
	send(time.Second, 0, predict.CorrectionReport{Player: 2, Corrections: 99}) // seat 0 is player 1
	rep := r.Report(2 * time.Second)
	if got := rate(rep, 1); len(got) != 1 || got[0] != 5 {
		t.Fatalf("player 1's corrections per second %v, want [5]", got)
	}
	if got := rate(rep, 2); len(got) != 1 || got[0] != 0 {
		t.Fatalf("player 2 reported nothing, yet %v corrections per second", got)
	}
	if len(rep.Histograms) != 1 || rep.Histograms[0].Player != 1 || rep.Histograms[0].Name != CorrectionErrorHistogram ||
		len(rep.Histograms[0].Buckets) != predict.NumErrorBuckets || rep.Histograms[0].Buckets[2].Count != 7 ||
		rep.Histograms[0].Buckets[2].LE != predict.ErrorBounds[2] || rep.Histograms[0].Buckets[8].Count != 1 {
		t.Fatalf("histograms %+v", rep.Histograms)
	}
	send(3*time.Second, 0, predict.CorrectionReport{Player: 1, Corrections: 16})
	if got := rate(r.Report(4*time.Second), 1); len(got) != 2 || got[1] != 3 {
		t.Fatalf("player 1's corrections per second %v, want [5 3]", got)
	}
}
