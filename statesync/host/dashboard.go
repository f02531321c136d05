package host

import (
	"time"

	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync"
)

// Report implements room.Reporter: the room's majority agreement
// (clients with the majority hash over clients voting, in percent, over
// the match), frames by degradation tier, desyncs and recoveries.
func (r *ssRoom) Report(time.Duration) room.Report {
	st := r.core.Stats()
	agreement := 100.0
	if st.Voters > 0 {
		agreement = 100 * float64(st.Agreeing) / float64(st.Voters)
	}
	return room.Report{Counters: []room.Figure{
		{Name: "verdicts", Value: float64(st.Verdicts)},
		{Name: "agreement_percent", Value: agreement},
		{Name: "tier_normal", Value: float64(st.Tiers[statesync.TierNormal])},
		{Name: "tier_degraded", Value: float64(st.Tiers[statesync.TierDegraded])},
		{Name: "tier_minimal", Value: float64(st.Tiers[statesync.TierMinimal])},
		{Name: "tier_skip", Value: float64(st.Tiers[statesync.TierSkip])},
		{Name: "desyncs", Value: float64(st.Desyncs)},
		{Name: "corrections", Value: float64(st.Corrections)},
		{Name: "recovered", Value: float64(st.Recovered)},
		{Name: "late_joins", Value: float64(st.LateJoins)},
	}}
}
