package scenario

import (
	"fmt"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Params describe a generated match. The zero value is a 4-player match
// with 50 units each on a map sized for them.
type Params struct {
	Players        int    // 1..sim.MaxPlayers; default 4
	UnitsPerPlayer int    // starting units; default 50
	MapSize        int    // cells per side; default 40 + 6 per player
	Seed           uint64 // the same seed gives the same map
}

// Defaults of Params.
const (
	DefaultPlayers        = 4
	DefaultUnitsPerPlayer = 50
)

// WithDefaults returns p with every zero field set to its default.
func (p Params) WithDefaults() Params {
	if p.Players <= 0 {
		p.Players = DefaultPlayers
	}
	if p.UnitsPerPlayer <= 0 {
		p.UnitsPerPlayer = DefaultUnitsPerPlayer
	}
	if p.MapSize <= 0 {
		p.MapSize = 40 + 6*p.Players
	}
	return p
}

// baseMargin keeps bases this many cells from the map edge; baseClear is
// the radius kept free of rocks around a base.
const (
	baseMargin = 6
	baseClear  = 7
)

// Generate builds the map and rules of a match: a height field, scattered
// rock outcrops, each player's base (HQ, barracks, factory, turret) on a
// ring around the map with its starting army, neutral oil derricks and
// trees. The Config limits units to the starting army size (at least 20),
// so production replaces losses.
func Generate(p Params) (sim.MapData, sim.Config, error) {
	p = p.WithDefaults()
	if p.Players > sim.MaxPlayers {
		return sim.MapData{}, sim.Config{}, fmt.Errorf("scenario: %d players (max %d)", p.Players, sim.MaxPlayers)
	}
	if p.MapSize < 2*baseMargin+4 || p.MapSize > sim.MaxMapSize {
		return sim.MapData{}, sim.Config{}, fmt.Errorf("scenario: map size %d out of range [%d, %d]", p.MapSize, 2*baseMargin+4, sim.MaxMapSize)
	}
	g := &generator{p: p, r: sim.SplitMix64{S: p.Seed}, n: p.MapSize}
	g.terrain()
	bases := g.bases()
	for i, b := range bases {
		g.base(protocol.PlayerID(i+1), b)
	}
	g.neutrals()
	md := sim.MapData{Width: g.n, Height: g.n, Cells: g.cells, Players: p.Players, Entities: g.placed}
	cfg := sim.Config{MaxUnitsPerPlayer: max(p.UnitsPerPlayer, 20)}
	return md, cfg, nil
}

type generator struct {
	p        Params
	r        sim.SplitMix64
	n        int
	heights  []uint8
	blocked  []bool
	occupied []bool // cells holding a structure or a starting unit pair
	cells    []sim.Cell
	placed   []sim.Placement
}

// terrain makes heights by interpolating a coarse random lattice and
// scatters small rock outcrops.
func (g *generator) terrain() {
	n := g.n
	const step = 8
	lat := n/step + 2
	coarse := make([]int, lat*lat)
	for i := range coarse {
		coarse[i] = int(g.r.Intn(16))
	}
	g.heights = make([]uint8, n*n)
	for y := range n {
		for x := range n {
			cx, cy, fx, fy := x/step, y/step, x%step, y%step
			a := coarse[cy*lat+cx]*(step-fx) + coarse[cy*lat+cx+1]*fx
			b := coarse[(cy+1)*lat+cx]*(step-fx) + coarse[(cy+1)*lat+cx+1]*fx
			g.heights[y*n+x] = uint8((a*(step-fy) + b*fy) / (step * step))
		}
	}
	g.blocked = make([]bool, n*n)
	g.occupied = make([]bool, n*n)
	for range n * n / 120 {
		cx, cy, rad := int(g.r.Intn(uint64(n))), int(g.r.Intn(uint64(n))), int(g.r.Intn(2))+1
		for y := cy - rad; y <= cy+rad; y++ {
			for x := cx - rad; x <= cx+rad; x++ {
				if g.inside(x, y) && (x-cx)*(x-cx)+(y-cy)*(y-cy) <= rad*rad {
					g.blocked[y*n+x] = true
				}
			}
		}
	}
}

func (g *generator) inside(x, y int) bool { return x >= 0 && y >= 0 && x < g.n && y < g.n }

// bases spreads the players' base cells evenly along a rectangle inset from
// the map edge, starting at a seed-chosen point, and clears rock around them.
func (g *generator) bases() [][2]int {
	lo, side := baseMargin, g.n-1-2*baseMargin
	perimeter := 4 * side
	offset := int(g.r.Intn(uint64(perimeter)))
	out := make([][2]int, g.p.Players)
	for i := range out {
		d := (offset + i*perimeter/g.p.Players) % perimeter
		var x, y int
		switch edge, k := d/side, d%side; edge {
		case 0:
			x, y = lo+k, lo
		case 1:
			x, y = lo+side, lo+k
		case 2:
			x, y = lo+side-k, lo+side
		default:
			x, y = lo, lo+side-k
		}
		out[i] = [2]int{x, y}
		for cy := y - baseClear; cy <= y+baseClear; cy++ {
			for cx := x - baseClear; cx <= x+baseClear; cx++ {
				if g.inside(cx, cy) {
					g.blocked[cy*g.n+cx] = false
				}
			}
		}
	}
	g.cells = make([]sim.Cell, g.n*g.n)
	for i := range g.cells {
		g.cells[i] = sim.NewCell(g.heights[i], g.blocked[i])
	}
	return out
}

func (g *generator) put(t sim.EntityType, owner protocol.PlayerID, x, y int, pos protocol.WorldPos) {
	g.occupied[y*g.n+x] = true
	g.placed = append(g.placed, sim.Placement{Type: t, Owner: owner, Pos: pos})
}

// base places a player's buildings and, spiralling out from a point toward
// the map centre, its starting army, two units per free cell.
func (g *generator) base(owner protocol.PlayerID, at [2]int) {
	x, y := at[0], at[1]
	for _, b := range [...]struct {
		t      sim.EntityType
		dx, dy int
	}{{sim.TypeHQ, 0, 0}, {sim.TypeBarracks, 2, 0}, {sim.TypeFactory, -2, 0}, {sim.TypeTurret, 0, 2}, {sim.TypeTurret, 0, -2}} {
		bx, by := x+b.dx, y+b.dy
		if g.inside(bx, by) && !g.occupied[by*g.n+bx] {
			g.put(b.t, owner, bx, by, sim.CellCenter(bx, by))
		}
	}
	ux, uy := x+3*sign(g.n/2-x), y+3*sign(g.n/2-y)
	left := g.p.UnitsPerPlayer
	for ring := 0; left > 0 && ring < g.n; ring++ {
		for dy := -ring; dy <= ring && left > 0; dy++ {
			for dx := -ring; dx <= ring && left > 0; dx++ {
				if max(abs(dx), abs(dy)) != ring {
					continue
				}
				cx, cy := ux+dx, uy+dy
				if !g.inside(cx, cy) || g.blocked[cy*g.n+cx] || g.occupied[cy*g.n+cx] {
					continue
				}
				c := sim.CellCenter(cx, cy)
				for _, off := range [2]protocol.SimCoord{-256, 256} {
					if left == 0 {
						break
					}
					k := g.p.UnitsPerPlayer - left
					g.put(unitMix(k), owner, cx, cy, protocol.WorldPos{X: c.X + off, Y: c.Y + off})
					left--
				}
			}
		}
	}
}

// unitMix makes armies of 60% infantry, 30% tanks and 10% scouts.
func unitMix(k int) sim.EntityType {
	switch k % 10 {
	case 0, 2, 4, 6, 7, 9:
		return sim.TypeInfantry
	case 1, 5, 8:
		return sim.TypeTank
	default:
		return sim.TypeScout
	}
}

// neutrals adds oil derricks on free passable cells and trees anywhere
// free; rocks mark some blocked cells.
func (g *generator) neutrals() {
	n := uint64(g.n)
	for range g.p.Players/2 + 2 {
		for range 100 {
			x, y := int(g.r.Intn(n)), int(g.r.Intn(n))
			if !g.blocked[y*g.n+x] && !g.occupied[y*g.n+x] {
				g.put(sim.TypeOilDerrick, sim.Neutral, x, y, sim.CellCenter(x, y))
				break
			}
		}
	}
	for range g.n * g.n / 40 {
		x, y := int(g.r.Intn(n)), int(g.r.Intn(n))
		if g.occupied[y*g.n+x] {
			continue
		}
		t := sim.TypeTree
		if g.blocked[y*g.n+x] {
			t = sim.TypeRock
		}
		g.put(t, sim.Neutral, x, y, sim.CellCenter(x, y))
	}
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func abs(v int) int { return max(v, -v) }
