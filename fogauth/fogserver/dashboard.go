package fogserver

import (
	"time"

	"github.com/tickwire/tickwire/server/room"
)

// saturationHistory is how many reports of budget saturation a room
// keeps per player (one a second).
const saturationHistory = 120

// SaturationSeries is the name of the series of each player's budget
// saturation: the percentage of ticks since the previous report whose
// deltas for the player exceeded its bandwidth budget.
const SaturationSeries = "budget_saturation"

// saturation is what a room keeps for its saturation series.
type saturation struct {
	points    []room.Ring[room.Point] // by player seat
	saturated []uint64                // the player's Saturated at the previous report
	tick      uint64                  // the core's tick then
}

// Report implements room.Reporter: the room's counters, each player's
// budget saturation over the last reports, and the spectator map.
func (r *fogRoom) Report(time.Duration) room.Report {
	s := &r.sat
	if s.points == nil {
		s.points, s.saturated = make([]room.Ring[room.Point], r.players), make([]uint64, r.players)
		for i := range s.points {
			s.points[i] = room.NewRing[room.Point](saturationHistory)
		}
	}
	tick := r.core.Tick()
	st := r.core.Stats()
	rep := room.Report{Counters: []room.Figure{
		{Name: "saturated_client_ticks", Value: float64(st.Saturated)},
		{Name: "orders_rejected", Value: float64(st.Rejections)},
		{Name: "skipped_ticks", Value: float64(st.SkippedTicks)},
		{Name: "fog_recomputes", Value: float64(st.FogRecomputes)},
	}}
	for i := range s.points {
		cs, ok := r.core.ClientStats(clientID(i))
		if ok && tick > s.tick && cs.Saturated >= s.saturated[i] {
			s.points[i].Push(room.Point{Tick: tick, Value: 100 * float64(cs.Saturated-s.saturated[i]) / float64(tick-s.tick)})
			s.saturated[i] = cs.Saturated
		}
		rep.Series = append(rep.Series, room.Series{Name: SaturationSeries, Player: i + 1, Unit: "% of ticks",
			Points: s.points[i].AppendTo(nil)})
	}
	s.tick = tick
	rep.Map = r.spectatorMap()
	return rep
}
