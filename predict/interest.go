package predict

import (
	"cmp"
	"math"
	"slices"
)

// InterestConfig is interest management: which entities the server sends
// each client. The zero value is off (every client receives every entity).
//
// A client always receives its own entities (its avatar and projectiles).
// Another entity enters its interest when it is within Radius of the
// client's avatar, or when it moves along a line that passes within
// LineOfFire of the avatar over the next LineOfFireTicks ticks (a
// projectile aimed at it); it leaves only beyond Radius + Hysteresis and
// off every such line, so an entity at the edge does not flicker in and
// out. Of the candidates, the nearest Budget enter (own entities never
// count against it), so a crowd costs a bounded number of records per
// client, as the fog mode's per-client budget does. At the budget an
// entity the client already holds keeps its place against a newcomer
// unless the newcomer is nearer by more than Hysteresis: two entities
// whose distances swap by less than that do not trade places every tick
// (an entity on a line of fire still comes first).
type InterestConfig struct {
	Radius          float64 // world units; 0: interest management off
	Hysteresis      float64 // world units beyond Radius before leaving; Radius/4
	LineOfFire      float64 // world units; 3
	LineOfFireTicks int     // ticks of flight looked ahead; the tick rate
	Budget          int     // other entities per client at most; 64
}

func (c InterestConfig) withDefaults(tickRate int) InterestConfig {
	if c.Radius <= 0 {
		return InterestConfig{}
	}
	if c.Hysteresis <= 0 {
		c.Hysteresis = c.Radius / 4
	}
	if c.LineOfFire <= 0 {
		c.LineOfFire = 3
	}
	c.LineOfFireTicks = orInt(c.LineOfFireTicks, tickRate)
	c.Budget = orInt(c.Budget, 64)
	return c
}

// On reports whether interest management is on.
func (c InterestConfig) On() bool { return c.Radius > 0 }

// candidate is an entity that may enter a client's interest, by priority:
// those on a line of fire first, then by rank, the distance less
// Hysteresis for an entity the client holds.
type candidate struct {
	id    EntityID
	aimed bool
	rank  float64
}

func (a candidate) compare(b candidate) int {
	if a.aimed != b.aimed {
		if a.aimed {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.id, b.id))
}

// interest returns the ids (ascending) of the entities in views (all of
// the game's, ascending id) that player p should receive, given the ones
// it received last (prev, ascending). dst and scratch are reused.
func (c InterestConfig) interest(p PlayerID, self EntityID, views []EntityView, prev, dst []EntityID, scratch []candidate) ([]EntityID, []candidate) {
	dst, scratch = dst[:0], scratch[:0]
	i, ok := slices.BinarySearchFunc(views, self, func(v EntityView, id EntityID) int { return cmp.Compare(v.ID, id) })
	if !ok {
		// No avatar (yet): its own entities only.
		for _, v := range views {
			if v.Owner == p {
				dst = append(dst, v.ID)
			}
		}
		return dst, scratch
	}
	me := views[i].Pos
	for _, v := range views {
		if v.Owner == p {
			dst = append(dst, v.ID)
			continue
		}
		d := dist(v.Pos, me)
		_, had := slices.BinarySearch(prev, v.ID)
		rank := d
		if had {
			rank -= c.Hysteresis
		}
		switch {
		case c.aimedAt(v, me):
			scratch = append(scratch, candidate{v.ID, true, rank})
		case d <= c.Radius || (had && d <= c.Radius+c.Hysteresis):
			scratch = append(scratch, candidate{v.ID, false, rank})
		}
	}
	slices.SortFunc(scratch, candidate.compare)
	for _, k := range scratch[:min(len(scratch), c.Budget)] {
		dst = append(dst, k.id)
	}
	slices.Sort(dst)
	return dst, scratch
}

// aimedAt reports whether v, moving as it does, passes within LineOfFire
// of me in the next LineOfFireTicks ticks.
func (c InterestConfig) aimedAt(v EntityView, me [3]float64) bool {
	speed2 := v.Vel[0]*v.Vel[0] + v.Vel[1]*v.Vel[1]
	if speed2 == 0 {
		return false
	}
	// Closest approach of p + k·vel (k in [0, ticks]) to me, on the ground plane.
	dx, dy := me[0]-v.Pos[0], me[1]-v.Pos[1]
	k := min(max((dx*v.Vel[0]+dy*v.Vel[1])/speed2, 0), float64(c.LineOfFireTicks))
	ex, ey := dx-k*v.Vel[0], dy-k*v.Vel[1]
	return ex*ex+ey*ey <= c.LineOfFire*c.LineOfFire
}

func dist(a, b [3]float64) float64 {
	return math.Hypot(a[0]-b[0], a[1]-b[1])
}

// filterRecords appends to dst the records of recs (ascending id) whose
// id is in ids (ascending).
func filterRecords(recs []Record, ids []EntityID, dst []Record) []Record {
	j := 0
	for _, r := range recs {
		for j < len(ids) && ids[j] < r.ID {
			j++
		}
		if j < len(ids) && ids[j] == r.ID {
			dst = append(dst, r)
		}
	}
	return dst
}
