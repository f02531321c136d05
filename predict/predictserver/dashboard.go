package predictserver

import (
	"math"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/server/room"
)

// Names of the prediction room's dashboard figures beside its counters.
const (
	// CorrectionRateSeries is each player's corrections per second, from
	// its CorrectionReports, at each report of the room (once a second).
	CorrectionRateSeries = "corrections_per_s"
	// CorrectionErrorHistogram is each player's distribution of
	// correction error (world units) since it joined.
	CorrectionErrorHistogram = "correction_error"
)

// correctionHistory is how many points of corrections per second a room
// keeps per player (one a second).
const correctionHistory = 120

// corrections is what a room keeps for its correction figures.
type corrections struct {
	rate  []room.Ring[room.Point] // by seat
	count []uint64                // corrections reported at the previous report, by seat
	at    time.Duration           // the previous report's now
}

// Report implements room.Reporter: the room's input figures (late,
// dropped, clamped and rejected inputs are what the clients correct
// for), snapshots, and the corrections the clients report
// (predict.CorrectionReport): per player, corrections per second over the
// last reports and the distribution of their error.
func (r *predictionRoom) Report(now time.Duration) room.Report {
	st := r.srv.Stats()
	rep := room.Report{Counters: []room.Figure{
		{Name: "inputs_applied", Value: float64(st.InputsApplied)},
		{Name: "inputs_late", Value: float64(st.InputsLate)},
		{Name: "inputs_dropped", Value: float64(st.InputsDropped)},
		{Name: "inputs_clamped", Value: float64(st.InputsClamped)},
		{Name: "inputs_rejected", Value: float64(st.InputsRejected)},
		{Name: "ticks_slipped", Value: float64(st.Slipped)},
		{Name: "snapshot_bytes", Value: float64(st.SnapshotBytes)},
	}}
	c := &r.shown
	if c.rate == nil {
		c.rate, c.count = make([]room.Ring[room.Point], len(r.player)), make([]uint64, len(r.player))
		for i := range c.rate {
			c.rate[i] = room.NewRing[room.Point](correctionHistory)
		}
		c.at = now
	}
	var total uint64
	tick := r.srv.ServerTick()
	for seat, p := range r.player {
		cr, ok := r.srv.CorrectionReport(p)
		if now > c.at && cr.Corrections >= c.count[seat] {
			c.rate[seat].Push(room.Point{Tick: tick, Value: float64(cr.Corrections-c.count[seat]) / (now - c.at).Seconds()})
		}
		c.count[seat] = cr.Corrections
		total += cr.Corrections
		rep.Series = append(rep.Series, room.Series{Name: CorrectionRateSeries, Player: int(p), Unit: "corrections/s",
			Points: c.rate[seat].AppendTo(nil)})
		if ok {
			rep.Histograms = append(rep.Histograms, errorHistogram(int(p), &cr))
		}
	}
	c.at = now
	rep.Counters = append(rep.Counters, room.Figure{Name: "client_corrections", Value: float64(total)})
	return rep
}

// errorHistogram is a player's reported error distribution; the overflow
// bucket's bound is the largest float (JSON has no infinity).
func errorHistogram(player int, cr *predict.CorrectionReport) room.Histogram {
	h := room.Histogram{Name: CorrectionErrorHistogram, Player: player, Unit: "world units"}
	for i, n := range cr.Errors {
		h.Buckets = append(h.Buckets, room.Bucket{LE: min(predict.ErrorBucketBound(i), math.MaxFloat64), Count: n})
	}
	return h
}
