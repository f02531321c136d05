package sim

import "github.com/tickwire/tickwire/protocol"

// FogProvider computes what each player can see. A fog-authoritative server
// calls UpdateVisibility for every player after each tick, then sends each
// player only the entities VisibleEntities lists.
type FogProvider interface {
	// UpdateVisibility recomputes player's view from its sight sources.
	UpdateVisibility(player protocol.PlayerID, sources []SightSource, terrain *Terrain)
	// VisibleEntities lists, in ascending ID order, the entities player saw
	// at its last update. The slice is valid until the next update for
	// that player and must not be modified.
	VisibleEntities(player protocol.PlayerID) []protocol.EntityID
}

// BatchFogProvider is a FogProvider that can update many players at
// once, as a server does every tick: UpdateCells recomputes the cells a
// player sees, and ListVisible lists the visible entities of players
// 1..players in one pass over the world. UpdateCells may be skipped for a
// player whose sight sources stand in the same cells with the same ranges
// in whole cells as last time (the cells seen cannot have changed, though
// the entities in them may have).
type BatchFogProvider interface {
	FogProvider
	UpdateCells(player protocol.PlayerID, sources []SightSource, terrain *Terrain)
	ListVisible(players int)
}

// EntityReader is the read access a fog provider needs to the world; *Sim
// implements it.
type EntityReader interface {
	Entities() []EntityState
}

// RadiusFogProvider is classic circle visibility on the cell grid: a cell
// (x, y) is visible to a player when, for one of its sight sources standing
// in cell (sx, sy) with range R cells (Range / CellSize, rounded down),
// (x-sx)² + (y-sy)² <= R². Terrain does not block sight. A player sees the
// entities in visible cells and, always, its own entities.
//
// Each update stamps the sources' discs into a per-player grid of
// generation numbers (so nothing is cleared between updates), stamping each
// cell's largest disc once. When the sources are exactly those of the last
// update, the stamping is skipped (the seed's sight-source hashing).
type RadiusFogProvider struct {
	world   EntityReader
	players []*playerFog // index = PlayerID
	batch   []*playerFog // scratch of ListVisible
}

type playerFog struct {
	width, height int
	gen           uint32
	seen          []uint32 // cell visible iff seen == gen
	stamped       []uint32 // gen<<8 | largest range stamped from the cell this gen
	sourcesHash   uint64
	visible       []protocol.EntityID
}

// NewRadiusFogProvider returns a provider reading entity positions from w.
func NewRadiusFogProvider(w EntityReader) *RadiusFogProvider {
	return &RadiusFogProvider{world: w}
}

func (f *RadiusFogProvider) fog(player protocol.PlayerID, t *Terrain) *playerFog {
	for int(player) >= len(f.players) {
		f.players = append(f.players, nil)
	}
	pf := f.players[player]
	if pf == nil || pf.width != t.width || pf.height != t.height {
		n := t.width * t.height
		pf = &playerFog{width: t.width, height: t.height, seen: make([]uint32, n), stamped: make([]uint32, n)}
		f.players[player] = pf
	}
	return pf
}

// UpdateVisibility implements FogProvider.
func (f *RadiusFogProvider) UpdateVisibility(player protocol.PlayerID, sources []SightSource, t *Terrain) {
	f.UpdateCells(player, sources, t)
	f.list(player, f.players[player])
}

// UpdateCells implements BatchFogProvider.
func (f *RadiusFogProvider) UpdateCells(player protocol.PlayerID, sources []SightSource, t *Terrain) {
	pf := f.fog(player, t)
	if h := hashSources(sources); h != pf.sourcesHash || pf.gen == 0 {
		pf.sourcesHash = h
		pf.stamp(sources)
	}
}

// ListVisible implements BatchFogProvider: one pass over the entities,
// each entity's cell checked against every player's cells. Players never
// updated are left out.
func (f *RadiusFogProvider) ListVisible(players int) {
	f.batch = f.batch[:0]
	for p := 1; p <= players; p++ {
		var pf *playerFog
		if p < len(f.players) {
			pf = f.players[p]
		}
		if pf != nil {
			pf.visible = pf.visible[:0]
		}
		f.batch = append(f.batch, pf)
	}
	ents := f.world.Entities()
	for i := range ents {
		e := &ents[i]
		x, y := CellOf(e.Pos)
		for p, pf := range f.batch {
			switch {
			case pf == nil:
			case e.Owner == protocol.PlayerID(p+1):
				pf.visible = append(pf.visible, e.ID)
			case x >= 0 && y >= 0 && x < pf.width && y < pf.height && pf.seen[y*pf.width+x] == pf.gen:
				pf.visible = append(pf.visible, e.ID)
			}
		}
	}
}

func (f *RadiusFogProvider) list(player protocol.PlayerID, pf *playerFog) {
	pf.visible = pf.visible[:0]
	for _, e := range f.world.Entities() {
		if e.Owner == player {
			pf.visible = append(pf.visible, e.ID)
			continue
		}
		x, y := CellOf(e.Pos)
		if x >= 0 && y >= 0 && x < pf.width && y < pf.height && pf.seen[y*pf.width+x] == pf.gen {
			pf.visible = append(pf.visible, e.ID)
		}
	}
}

// VisibleEntities implements FogProvider.
func (f *RadiusFogProvider) VisibleEntities(player protocol.PlayerID) []protocol.EntityID {
	if int(player) >= len(f.players) || f.players[player] == nil {
		return nil
	}
	return f.players[player].visible
}

// CellVisible reports whether player saw cell (x, y) at its last update.
func (f *RadiusFogProvider) CellVisible(player protocol.PlayerID, x, y int) bool {
	if int(player) >= len(f.players) || f.players[player] == nil {
		return false
	}
	pf := f.players[player]
	return x >= 0 && y >= 0 && x < pf.width && y < pf.height && pf.seen[y*pf.width+x] == pf.gen
}

// maxSightCells bounds a sight range, keeping stamps small and the stamp
// marker's 8 bits sufficient.
const maxSightCells = 255

func (pf *playerFog) stamp(sources []SightSource) {
	pf.gen++
	if pf.gen == 1<<24 { // the stamped marker keeps 24 bits of generation
		clear(pf.seen)
		clear(pf.stamped)
		pf.gen = 1
	}
	gen := pf.gen
	for _, s := range sources {
		sx, sy := CellOf(s.Pos)
		if s.Range < 0 || sx < 0 || sy < 0 || sx >= pf.width || sy >= pf.height {
			continue
		}
		r := int(min(s.Range/protocol.CellSize, maxSightCells))
		c := sy*pf.width + sx
		if m := pf.stamped[c]; m>>8 == gen && int(m&0xff) >= r {
			continue // a disc at least as large was stamped from this cell
		}
		pf.stamped[c] = gen<<8 | uint32(r)
		r2 := r * r
		dx := r
		for dy := 0; dy <= r; dy++ {
			for dx*dx+dy*dy > r2 {
				dx--
			}
			x0, x1 := max(sx-dx, 0), min(sx+dx, pf.width-1)
			if y := sy + dy; y < pf.height {
				fill(pf.seen[y*pf.width+x0:y*pf.width+x1+1], gen)
			}
			if y := sy - dy; dy > 0 && y >= 0 {
				fill(pf.seen[y*pf.width+x0:y*pf.width+x1+1], gen)
			}
		}
	}
}

func fill(row []uint32, v uint32) {
	for i := range row {
		row[i] = v
	}
}

// hashSources fingerprints a source list (FNV-1a over the fields).
func hashSources(sources []SightSource) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range sources {
		for _, v := range [3]protocol.SimCoord{s.Pos.X, s.Pos.Y, s.Range} {
			h ^= uint64(uint32(v))
			h *= 1099511628211
		}
	}
	h ^= uint64(len(sources))
	return h * 1099511628211
}
