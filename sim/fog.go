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
// Each update stamps the sources' discs into a per-player bitmap of the
// cells (rows of 64-bit words, one bit per cell, so a disc's row is a few
// word operations), stamping each cell's largest disc once. When the
// sources are exactly those of the last update, the stamping is skipped
// (the seed's sight-source hashing).
type RadiusFogProvider struct {
	world   EntityReader
	players []*playerFog // index = PlayerID
	cells   []cellXY     // scratch of ListVisible: each entity's cell
}

type playerFog struct {
	width, height int
	words         int      // words per row of seen
	gen           uint32   // generation of the stamped markers
	seen          []uint64 // bit x%64 of word y*words+x/64: cell (x, y) visible
	stamped       []uint32 // gen<<8 | largest range stamped from the cell this gen
	sourcesHash   uint64
	visible       []protocol.EntityID
}

type cellXY struct{ x, y int32 }

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
		words := (t.width + 63) / 64
		pf = &playerFog{width: t.width, height: t.height, words: words,
			seen: make([]uint64, words*t.height), stamped: make([]uint32, t.width*t.height)}
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

// ListVisible implements BatchFogProvider: the entities' cells are found
// once, then each player's list is one pass over them. Players never
// updated are left out.
func (f *RadiusFogProvider) ListVisible(players int) {
	ents := f.world.Entities()
	f.cells = f.cells[:0]
	for i := range ents {
		x, y := CellOf(ents[i].Pos)
		f.cells = append(f.cells, cellXY{int32(x), int32(y)}) // a SimCoord over CellSize fits
	}
	for p := 1; p <= players && p < len(f.players); p++ {
		pf := f.players[p]
		if pf == nil {
			continue
		}
		owner := protocol.PlayerID(p)
		pf.visible = pf.visible[:0]
		for i := range ents {
			c := f.cells[i]
			if ents[i].Owner == owner || pf.cell(int(c.x), int(c.y)) {
				pf.visible = append(pf.visible, ents[i].ID)
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
		if x, y := CellOf(e.Pos); pf.cell(x, y) {
			pf.visible = append(pf.visible, e.ID)
		}
	}
}

// cell reports whether cell (x, y) is visible; false off the map.
func (pf *playerFog) cell(x, y int) bool {
	return uint(x) < uint(pf.width) && uint(y) < uint(pf.height) && pf.seen[y*pf.words+x>>6]>>(x&63)&1 != 0
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
	return f.players[player].cell(x, y)
}

// maxSightCells bounds a sight range, keeping stamps small and the stamp
// marker's 8 bits sufficient.
const maxSightCells = 255

func (pf *playerFog) stamp(sources []SightSource) {
	pf.gen++
	if pf.gen == 1<<24 { // the stamped marker keeps 24 bits of generation
		clear(pf.stamped)
		pf.gen = 1
	}
	gen := pf.gen
	clear(pf.seen)
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
				setSpan(pf.seen[y*pf.words:(y+1)*pf.words], x0, x1)
			}
			if y := sy - dy; dy > 0 && y >= 0 {
				setSpan(pf.seen[y*pf.words:(y+1)*pf.words], x0, x1)
			}
		}
	}
}

// setSpan sets bits x0..x1 (inclusive) of the bitmap row.
func setSpan(row []uint64, x0, x1 int) {
	w0, w1 := x0>>6, x1>>6
	lo, hi := ^uint64(0)<<(x0&63), ^uint64(0)>>(63-x1&63)
	if w0 == w1 {
		row[w0] |= lo & hi
		return
	}
	row[w0] |= lo
	for w := w0 + 1; w < w1; w++ {
		row[w] = ^uint64(0)
	}
	row[w1] |= hi
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
