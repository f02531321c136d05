package predictserver

import (
	"time"

	"github.com/tickwire/tickwire/server/room"
)

// Report implements room.Reporter: the room's input figures (late,
// dropped, clamped and rejected inputs are what the clients correct
// for) and snapshots.
func (r *predictionRoom) Report(time.Duration) room.Report {
	st := r.srv.Stats()
	return room.Report{Counters: []room.Figure{
		{Name: "inputs_applied", Value: float64(st.InputsApplied)},
		{Name: "inputs_late", Value: float64(st.InputsLate)},
		{Name: "inputs_dropped", Value: float64(st.InputsDropped)},
		{Name: "inputs_clamped", Value: float64(st.InputsClamped)},
		{Name: "inputs_rejected", Value: float64(st.InputsRejected)},
		{Name: "ticks_slipped", Value: float64(st.Slipped)},
		{Name: "snapshot_bytes", Value: float64(st.SnapshotBytes)},
	}}
}
