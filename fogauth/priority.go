package fogauth

import (
	"cmp"
	"slices"

	"github.com/tickwire/tickwire/protocol"
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

// nearGrid answers "is cell (x, y) near one of player p's units": per
// player, a bitmap of the cells holding its units, dilated by NearCells-1
// cells along both axes (rows of 64-bit words; each axis in four doubling
// steps, 1+2+4+7 = 14). All players' bitmaps are built in one pass over
// the entities, once per tick and only when some client's budget is
// saturated.
type nearGrid struct {
	w, h, words int        // cells, and words per row
	built       uint64     // tick of the bitmaps, 0 = never
	bits        [][]uint64 // per player (index PlayerID), h rows of words
	tmp         []uint64
}

// dilateSteps sum to NearCells-1.
var dilateSteps = [...]int{1, 2, 4, 7}

func (g *nearGrid) build(game Game, ents []protocol.EntityState, tick uint64) {
	players := game.Players()
	if g.built == tick {
		return
	}
	g.built = tick
	g.w, g.h = game.Size()
	g.words = (g.w + 63) / 64
	n := g.words * g.h
	for len(g.bits) <= players {
		g.bits = append(g.bits, nil)
	}
	for p := 1; p <= players; p++ {
		if cap(g.bits[p]) < n {
			g.bits[p] = make([]uint64, n)
		}
		g.bits[p] = g.bits[p][:n]
		clear(g.bits[p])
	}
	for i := range ents {
		e := &ents[i]
		if e.Owner == 0 || int(e.Owner) > players || !game.IsUnit(e) {
			continue
		}
		if x, y := cellOf(e.Pos); x >= 0 && y >= 0 && x < g.w && y < g.h {
			g.bits[e.Owner][y*g.words+x/64] |= 1 << (x % 64)
		}
	}
	if cap(g.tmp) < n {
		g.tmp = make([]uint64, n)
	}
	g.tmp = g.tmp[:n]
	for p := 1; p <= players; p++ {
		g.dilate(g.bits[p])
	}
}

// dilate spreads every set bit of b over the cells within NearCells-1 of
// it along x, row by row, then along y. Bits past the map's width are
// genuine dilations of units on the map, so they never make a cell near
// wrongly. A bitmap without units is left as it is.
func (g *nearGrid) dilate(b []uint64) {
	nw := g.words
	set := uint64(0)
	for _, v := range b {
		set |= v
	}
	if set == 0 {
		return
	}
	for y := 0; y < g.h; y++ {
		row := b[y*nw : (y+1)*nw]
		if nw == 1 {
			v := row[0]
			for _, k := range dilateSteps {
				v |= v<<k | v>>k
			}
			row[0] = v
			continue
		}
		src := g.tmp[:nw]
		for _, k := range dilateSteps {
			copy(src, row)
			for i := range row {
				l := src[i] << k
				r := src[i] >> k
				if i > 0 {
					l |= src[i-1] >> (64 - k)
				}
				if i+1 < nw {
					r |= src[i+1] << (64 - k)
				}
				row[i] |= l | r
			}
		}
	}
	for _, k := range dilateSteps {
		src := g.tmp[:len(b)]
		copy(src, b)
		up, down := k*nw, len(b)-k*nw // rows y-k and y+k exist past these words
		for i := range b {
			v := src[i]
			if i >= up {
				v |= src[i-up]
			}
			if i < down {
				v |= src[i+up]
			}
			b[i] = v
		}
	}
}

func (g *nearGrid) near(player protocol.PlayerID, p protocol.WorldPos) bool {
	x, y := cellOf(p)
	if x < 0 || y < 0 || x >= g.w || y >= g.h {
		return false
	}
	return g.bits[player][y*g.words+x/64]&(1<<(x%64)) != 0
}

// tierOf classifies e of game for recipient player (0 for a spectator,
// to whom every player's entity is combat-relevant).
func tierOf(game Game, e *protocol.EntityState, player protocol.PlayerID, g *nearGrid) Tier {
	switch {
	case e.Owner == 0 && game.IsDecoration(e):
		return TierDecoration
	case e.Owner == 0:
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
	bonus                    uint64
	order                    []int32 // indices into view.pend, in send order
	keys                     []uint64
	slot                     []int32 // index into view.pend by alias, while planning
}

// plan fills s.order with the deltas to send, in order; it reports whether
// the budget was saturated (something had to wait). Without saturation
// every delta is sent in alias order and no priority is computed. Only
// aliases order deltas, never simulation ids (whose order tells which
// entity was created first).
func (s *selector) plan(v *view, ents []protocol.EntityState, tick uint64, k *classifier) bool {
	s.order = s.order[:0]
	pend := v.pend
	if s.fits(pend) {
		for i := range pend {
			s.order = append(s.order, int32(i))
		}
		byAlias := func(i, j int32) int { return cmp.Compare(pend[i].alias, pend[j].alias) }
		if !slices.IsSortedFunc(s.order, byAlias) {
			slices.SortFunc(s.order, byAlias)
		}
		return false
	}
	// Keys: accumulated priority above, ^alias below, so the largest key
	// is the most urgent delta, ties going to the lower alias; slot finds
	// the delta of an alias.
	s.keys = s.keys[:0]
	if n := len(v.names.sims) + 1; len(s.slot) < n {
		s.slot = make([]int32, n+n/4)
	}
	g := k.grid()
	for i := range v.pend {
		p := &v.pend[i]
		e := &v.entries[p.entry]
		p.tier = TierFar // a leave carries no state to rank by
		if p.kind != DeltaLeave {
			p.tier = tierOf(k.r.game, &ents[p.ent], k.player, g)
		}
		e.accum = addPriority(e.accum, uint64(TierBase[p.tier])+min(tick-e.lastSent, 1<<32)*s.bonus)
		s.keys = append(s.keys, uint64(e.accum)<<32|uint64(^uint32(p.alias)))
		s.slot[p.alias] = int32(i)
	}
	s.takeTop(v.pend)
	return true
}

// addPriority is a+b, saturating at the largest priority.
func addPriority(a uint32, b uint64) uint32 {
	return uint32(min(uint64(a)+b, 1<<32-1))
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
		idx := s.slot[^uint32(h[0])]
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
