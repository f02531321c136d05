package fogauth

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Tier is an entity's priority class for one recipient.
type Tier uint8

// Priority tiers, most urgent first.
const (
	TierOwn        Tier = iota // the recipient's own entities
	TierNear                   // enemies within NearCells (Chebyshev) of an own unit
	TierFar                    // other enemies
	TierNeutral                // neutral structures
	TierDecoration             // trees, rocks, husks
	NumTiers
)

var tierNames = [NumTiers]string{"own", "near", "far", "neutral", "decoration"}

func (t Tier) String() string {
	if t < NumTiers {
		return tierNames[t]
	}
	return "tier?"
}

// TierBase is the base priority of each tier, at the seed's 256 scale.
var TierBase = [NumTiers]uint32{256, 204, 102, 51, 26}

// NearCells is the seed's "nearby" threshold: an enemy whose cell is fewer
// than 15 cells away (Chebyshev) from an own unit's cell.
const NearCells = 15

// nearGrid answers "is cell (x, y) near one of player p's units" with a
// 2-D prefix sum of p's unit counts per cell. All players' sums are built
// in one pass over the entities, once per tick and only when some
// client's budget is saturated.
type nearGrid struct {
	w, h  int
	built uint64    // tick of the sums, 0 = never
	sum   [][]int32 // per player (index PlayerID), (w+1)*(h+1)
}

func (g *nearGrid) build(ents []sim.EntityState, players int, t *sim.Terrain, tick uint64) {
	if g.built == tick {
		return
	}
	g.built, g.w, g.h = tick, t.Width(), t.Height()
	n := (g.w + 1) * (g.h + 1)
	for len(g.sum) <= players {
		g.sum = append(g.sum, nil)
	}
	for p := 1; p <= players; p++ {
		if cap(g.sum[p]) < n {
			g.sum[p] = make([]int32, n)
		}
		g.sum[p] = g.sum[p][:n]
		clear(g.sum[p])
	}
	stride := g.w + 1
	for i := range ents {
		e := &ents[i]
		if e.Owner == sim.Neutral || int(e.Owner) > players || e.Category() != sim.CategoryUnit {
			continue
		}
		if x, y := sim.CellOf(e.Pos); x >= 0 && y >= 0 && x < g.w && y < g.h {
			g.sum[e.Owner][(y+1)*stride+x+1]++
		}
	}
	for p := 1; p <= players; p++ {
		sum := g.sum[p]
		for y := 1; y <= g.h; y++ {
			row := int32(0)
			for x := 1; x <= g.w; x++ {
				row += sum[y*stride+x]
				sum[y*stride+x] = row + sum[(y-1)*stride+x]
			}
		}
	}
}

func (g *nearGrid) near(player protocol.PlayerID, p protocol.WorldPos) bool {
	x, y := sim.CellOf(p)
	x0, y0 := max(x-(NearCells-1), 0), max(y-(NearCells-1), 0)
	x1, y1 := min(x+NearCells, g.w), min(y+NearCells, g.h) // exclusive
	if x0 >= x1 || y0 >= y1 {
		return false
	}
	s, sum := g.w+1, g.sum[player]
	return sum[y1*s+x1]-sum[y0*s+x1]-sum[y1*s+x0]+sum[y0*s+x0] > 0
}

// tierOf classifies e for recipient player (0 for a spectator, to whom
// every player's entity is combat-relevant).
func tierOf(e *sim.EntityState, player protocol.PlayerID, g *nearGrid) Tier {
	switch {
	case e.Owner == sim.Neutral && e.Category() == sim.CategoryDecoration:
		return TierDecoration
	case e.Owner == sim.Neutral:
		return TierNeutral
	case player != 0 && e.Owner == player:
		return TierOwn
	case player == 0 || g.near(player, e.Pos):
		return TierNear
	}
	return TierFar
}

// selector chooses which pending deltas fit a client's budget this tick
// and packs them into StateUpdates.
type selector struct {
	budget, maxCount, maxMsg int
	bonus                    uint32
	order                    []int32 // indices into view.pend, in send order
	keys                     []uint64
}

// plan fills s.order with the deltas to send, in order; it reports whether
// the budget was saturated (something had to wait). Without saturation
// every delta is sent in ID order and no priority is computed.
func (s *selector) plan(v *view, tick uint64, classify func(*sim.EntityState) Tier) bool {
	s.order = s.order[:0]
	if s.fits(v.pend) {
		for i := range v.pend {
			s.order = append(s.order, int32(i))
		}
		return false
	}
	// Keys: accumulated priority above, ^index below, so the largest key
	// is the most urgent delta, ties going to the lower entity ID (pend
	// is in ID order).
	s.keys = s.keys[:0]
	for i := range v.pend {
		p := &v.pend[i]
		e := &v.entries[p.entry]
		base := TierBase[classify(&p.d.Entity)]
		if p.d.Kind == DeltaLeave {
			base = TierBase[TierFar] // a leave carries no state to rank by
		}
		e.accum += base + uint32(tick-e.lastSent)*s.bonus
		s.keys = append(s.keys, uint64(e.accum)<<32|uint64(^uint32(i)))
	}
	s.takeTop(v.pend)
	return true
}

// fits reports whether every delta of pend fits the budget.
func (s *selector) fits(pend []pending) bool {
	if len(pend) > s.maxCount {
		return false
	}
	used, room := 0, 0
	for i := range pend {
		used, room = s.add(used, room, int(pend[i].size))
		if used > s.budget {
			return false
		}
	}
	return true
}

// add charges one delta of size n: used is the bytes so far (headers
// included), room what is left in the current StateUpdate.
func (s *selector) add(used, room, n int) (int, int) {
	if n > room {
		used += HeaderSize
		room = s.maxMsg - HeaderSize
	}
	return used + n, room - n
}

// takeTop moves the deltas of s.keys into s.order, most urgent first,
// until one does not fit (it keeps its priority for the next tick): a
// heap, so only what is sent is ordered.
func (s *selector) takeTop(pend []pending) {
	h := s.keys
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	used, room := 0, 0
	for len(h) > 0 && len(s.order) < s.maxCount {
		idx := int32(^uint32(h[0]))
		u, r := s.add(used, room, int(pend[idx].size))
		if u > s.budget {
			return
		}
		used, room = u, r
		s.order = append(s.order, idx)
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		siftDown(h, 0)
	}
}

// siftDown restores the max-heap property of h below i.
func siftDown(h []uint64, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && h[r] > h[l] {
			j = r
		}
		if h[j] <= h[i] {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
