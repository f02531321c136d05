package sim

import (
	"math/bits"

	"github.com/tickwire/tickwire/protocol"
)

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
// Each update draws the sources' discs into a per-player bitmap of the
// cells (rows of 64-bit words, one bit per cell). The sources are grouped
// by range in whole cells, each group as a bitmap of the cells holding
// one (so a cell's sources count once); a group with few cells stamps
// each disc row by row, a crowded one dilates its bitmap by the disc
// instead (the rows of the disc at height dy are the group's cells spread
// by the disc's half-width there, shifted dy rows), which costs the same
// however many sources it holds. When the sources are exactly those of the
// last update, UpdateVisibility skips the drawing (the seed's sight-source
// hashing); UpdateCells leaves that decision to its caller.
type RadiusFogProvider struct {
	world   EntityReader
	players []*playerFog // index = PlayerID
	occ     occupancy    // scratch of ListVisible
	groups  []discGroup  // scratch of the drawing
	dil     []uint64
}

// discGroup is the cells holding a source of range r cells.
type discGroup struct {
	r     int
	count int // cells set in src
	src   []uint64
}

type playerFog struct {
	width, height int
	words         int      // words per row of seen
	drawn         bool     // seen was drawn by UpdateVisibility from sources hashing to sourcesHash
	seen          []uint64 // bit x%64 of word y*words+x/64: cell (x, y) visible
	sourcesHash   uint64
	visible       []protocol.EntityID
}

// occupancy lists which entities stand in which cells, as cell bitmaps
// do: the cell at bit position pos (word pos/64, bit pos%64) is occupied
// when its bit in occ is set, and then its entities are head[pos],
// next[head[pos]], … (-1 ends a list). own[p] lists player p's entities
// through ownNext the same way. seenBy is one player's result: bit i for
// entity i.
type occupancy struct {
	occ          []uint64
	head, next   []int32
	own, ownNext []int32
	seenBy       []uint64
}

// fill indexes ents on a map of the given size (words per bitmap row).
func (o *occupancy) fill(ents []EntityState, width, height, words, players int) {
	n := words * height
	o.occ = resize(o.occ, n)
	clear(o.occ)
	o.head = resize(o.head, n*64) // read only where occ is set
	o.next = resize(o.next, len(ents))
	o.ownNext = resize(o.ownNext, len(ents))
	o.own = resize(o.own, players+1)
	for p := range o.own {
		o.own[p] = -1
	}
	for i := range ents {
		e := &ents[i]
		if x, y := CellOf(e.Pos); uint(x) < uint(width) && uint(y) < uint(height) {
			pos := y*words*64 + x
			if bit := uint64(1) << (pos & 63); o.occ[pos>>6]&bit == 0 {
				o.occ[pos>>6] |= bit
				o.head[pos] = -1
			}
			o.next[i], o.head[pos] = o.head[pos], int32(i)
		}
		if e.Owner != Neutral && int(e.Owner) <= players {
			o.ownNext[i], o.own[e.Owner] = o.own[e.Owner], int32(i)
		}
	}
	o.seenBy = resize(o.seenBy, (len(ents)+63)/64)
}

// visible sets seenBy to the entities player owns or that stand in a
// cell set in seen (a bitmap of the size fill was given).
func (o *occupancy) visible(player protocol.PlayerID, seen []uint64) {
	clear(o.seenBy)
	for w, occ := range o.occ {
		for m := occ & seen[w]; m != 0; m &= m - 1 {
			for i := o.head[w*64+bits.TrailingZeros64(m)]; i >= 0; i = o.next[i] {
				o.seenBy[i>>6] |= 1 << (i & 63)
			}
		}
	}
	for i := o.own[player]; i >= 0; i = o.ownNext[i] {
		o.seenBy[i>>6] |= 1 << (i & 63)
	}
}

// resize returns s with length n, reusing its storage when it can (it
// allocates a quarter to spare, so a slowly growing n rarely allocates);
// the contents are unspecified.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
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
		words := (t.width + 63) / 64
		pf = &playerFog{width: t.width, height: t.height, words: words,
			seen: make([]uint64, words*t.height)}
		f.players[player] = pf
	}
	return pf
}

// UpdateVisibility implements FogProvider. The drawing is skipped when
// the sources are exactly those of the player's last update.
func (f *RadiusFogProvider) UpdateVisibility(player protocol.PlayerID, sources []SightSource, t *Terrain) {
	pf := f.fog(player, t)
	if h := hashSources(sources); h != pf.sourcesHash || !pf.drawn {
		pf.sourcesHash, pf.drawn = h, true
		f.draw(pf, sources)
	}
	f.list(player, pf)
}

// UpdateCells implements BatchFogProvider: it always draws, the caller
// having already decided that the cells may have changed (a second
// fingerprint of the sources here would repeat that decision).
func (f *RadiusFogProvider) UpdateCells(player protocol.PlayerID, sources []SightSource, t *Terrain) {
	pf := f.fog(player, t)
	pf.drawn = false // the fingerprint describes an older drawing
	f.draw(pf, sources)
}

// ListVisible implements BatchFogProvider: the entities are indexed by
// cell once, then each player's list comes from the occupied cells it
// sees and the entities it owns, in ID order. Players never updated are
// left out.
func (f *RadiusFogProvider) ListVisible(players int) {
	ents := f.world.Entities()
	var dims *playerFog // the players' bitmaps share its size (one map)
	for p := 1; p <= players && p < len(f.players); p++ {
		if pf := f.players[p]; pf != nil && dims == nil {
			dims = pf
		}
	}
	if dims == nil {
		return
	}
	f.occ.fill(ents, dims.width, dims.height, dims.words, players)
	for p := 1; p <= players && p < len(f.players); p++ {
		pf := f.players[p]
		if pf == nil {
			continue
		}
		owner := protocol.PlayerID(p)
		if pf.width != dims.width || pf.height != dims.height {
			f.list(owner, pf)
			continue
		}
		f.occ.visible(owner, pf.seen)
		vis := pf.visible[:0]
		for w, word := range f.occ.seenBy {
			for ; word != 0; word &= word - 1 {
				vis = append(vis, ents[w*64+bits.TrailingZeros64(word)].ID)
			}
		}
		pf.visible = vis
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

// maxSightCells bounds a sight range, keeping discs small.
const maxSightCells = 255

// draw computes pf.seen from the sources.
func (f *RadiusFogProvider) draw(pf *playerFog, sources []SightSource) {
	clear(pf.seen)
	n := len(pf.seen)
	groups := f.groups[:0]
	for _, s := range sources {
		sx, sy := CellOf(s.Pos)
		if s.Range < 0 || sx < 0 || sy < 0 || sx >= pf.width || sy >= pf.height {
			continue
		}
		r := int(min(s.Range/protocol.CellSize, maxSightCells))
		g := 0
		for g < len(groups) && groups[g].r != r {
			g++
		}
		if g == len(groups) {
			if g < cap(groups) {
				groups = groups[:g+1]
			} else {
				groups = append(groups, discGroup{})
			}
			gr := &groups[g]
			gr.r, gr.count = r, 0
			if cap(gr.src) < n {
				gr.src = make([]uint64, n)
			}
			gr.src = gr.src[:n]
			clear(gr.src)
		}
		w, bit := sy*pf.words+sx>>6, uint64(1)<<(sx&63)
		if groups[g].src[w]&bit == 0 {
			groups[g].src[w] |= bit
			groups[g].count++
		}
	}
	f.groups = groups
	for i := range groups {
		g := &groups[i]
		if g.crowded(pf) {
			f.dil = pf.dilateDisc(g, f.dil)
		} else {
			pf.stampEach(g)
		}
	}
}

// crowded reports whether dilating g's bitmap is cheaper than stamping
// its discs (instruction counts measured on the benchmark battle):
// stamping costs about 23 instructions per disc row and cell, the
// dilation about 3 per spread and 5 per pair of disc rows, each per
// bitmap word.
func (g *discGroup) crowded(pf *playerFog) bool {
	return g.count*(2*g.r+1)*23 >= pf.height*pf.words*(8*g.r+5)
}

// stampEach stamps the disc of every cell of g, row by row.
func (pf *playerFog) stampEach(g *discGroup) {
	for w, word := range g.src {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			pf.stamp(w%pf.words*64+b, w/pf.words, g.r)
		}
	}
}

// stamp sets the cells of the disc of r cells around cell (sx, sy).
func (pf *playerFog) stamp(sx, sy, r int) {
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

// dilateDisc sets the cells of the discs of all of g's cells at once: d
// holds g's bitmap spread by 0, 1, … r cells along x in turn, and each
// spread is ORed into seen shifted by the rows dy of the disc whose
// half-width it is. Bits spread past the map's width are never read, and
// a bit spread d times lies within d cells of a source, so nothing
// outside the discs is set. It returns d's storage for reuse.
func (pf *playerFog) dilateDisc(g *discGroup, d []uint64) []uint64 {
	d = append(d[:0], g.src...)
	nw, r := pf.words, g.r
	dy, half := r, 0 // the disc's rows from the rim inwards; half-width of row dy
	for spread := 0; ; spread++ {
		for ; dy >= 0; dy-- {
			for (half+1)*(half+1)+dy*dy <= r*r {
				half++
			}
			if half != spread {
				break
			}
			off := dy * nw // rows ±dy of the discs: d shifted dy rows
			if off < len(d) {
				up, down := pf.seen[off:], pf.seen[:len(d)-off]
				for i, v := range d[:len(d)-off] {
					up[i] |= v
				}
				for i, v := range d[off:] {
					down[i] |= v
				}
			}
		}
		if dy < 0 {
			return d
		}
		if nw == 1 { // spread d by one more cell
			for i, v := range d {
				d[i] = v | v<<1 | v>>1
			}
			continue
		}
		for y := 0; y < pf.height; y++ {
			row := d[y*nw : (y+1)*nw]
			prev := uint64(0)
			for i, cur := range row {
				next := uint64(0)
				if i+1 < nw {
					next = row[i+1]
				}
				row[i] = cur | cur<<1 | prev>>63 | cur>>1 | next<<63
				prev = cur
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
