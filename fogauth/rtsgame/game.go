package rtsgame

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Game is a sim.Sim as a fogauth.Game, with the RTS's radius fog.
type Game struct {
	s   *sim.Sim
	fog *sim.RadiusFogProvider
	// Sight per player (index = PlayerID): the sources of the last
	// update, their hash, and whether the cells were ever drawn.
	sources   [][]sim.SightSource
	sightHash []uint64
	drawn     []bool
}

// New starts the RTS on mapData with rules and the secret simulation seed.
func New(mapData sim.MapData, rules sim.Config, seed uint64) (*Game, error) {
	s, err := sim.New(mapData, rules, seed)
	if err != nil {
		return nil, err
	}
	return &Game{s: s, fog: sim.NewRadiusFogProvider(s),
		sightHash: make([]uint64, s.Players()+1), drawn: make([]bool, s.Players()+1)}, nil
}

// Sim is the simulation. Callers must not change it.
func (g *Game) Sim() *sim.Sim { return g.s }

// StateHash is the simulation's state hash (sim.Sim.StateHash): the
// room records it as the match's final hash.
func (g *Game) StateHash() uint64 { return g.s.StateHash() }

// Fog is the radius fog, updated by UpdateSight.
func (g *Game) Fog() *sim.RadiusFogProvider { return g.fog }

func (g *Game) Players() int                        { return g.s.Players() }
func (g *Game) Tick() uint64                        { return g.s.Tick() }
func (g *Game) Entities() []protocol.EntityState    { return g.s.Entities() }
func (g *Game) Size() (width, height int)           { return g.s.Terrain().Width(), g.s.Terrain().Height() }
func (g *Game) IsUnit(e *protocol.EntityState) bool { return sim.CategoryOf(e) == sim.CategoryUnit }

func (g *Game) IsDecoration(e *protocol.EntityState) bool {
	return sim.CategoryOf(e) == sim.CategoryDecoration
}

func (g *Game) Step(orders []protocol.TimestampedOrder, refused func(*protocol.TimestampedOrder, uint8)) error {
	return g.s.ApplyTickReport(protocol.TickOrders{Tick: g.s.Tick(), Orders: orders},
		func(o *protocol.TimestampedOrder, v sim.OrderValidity) { refused(o, uint8(v)) })
}

// Validate is sim.ValidateKnown.
func (g *Game) Validate(player protocol.PlayerID, o protocol.PlayerOrder, k interface {
	Knows(id protocol.EntityID) bool
	SeesCell(x, y int) bool
}) uint8 {
	return uint8(g.s.ValidateKnown(player, o, k))
}

func (g *Game) SetTargetFilter(f func(owner protocol.PlayerID, target *protocol.EntityState) bool) {
	g.s.SetTargetFilter(f)
}

// UpdateSight redraws each player's visible cells, skipping a player
// whose sight sources hash as at its last update (its cells cannot have
// changed) unless always, then lists every player's visible entities
// (they may have moved) in one pass.
func (g *Game) UpdateSight(always bool) (recomputed, skipped int) {
	t := g.s.Terrain()
	g.sources = g.s.AllSightSources(g.sources)
	for p := 1; p <= g.s.Players(); p++ {
		h := hashSources(g.sources[p])
		if !always && g.drawn[p] && h == g.sightHash[p] {
			skipped++
			continue
		}
		g.fog.UpdateCells(protocol.PlayerID(p), g.sources[p], t)
		g.sightHash[p], g.drawn[p] = h, true
		recomputed++
	}
	g.fog.ListVisible(g.s.Players())
	return recomputed, skipped
}

func (g *Game) Visible(player protocol.PlayerID) []protocol.EntityID {
	return g.fog.VisibleEntities(player)
}

func (g *Game) CellVisible(player protocol.PlayerID, x, y int) bool {
	return g.fog.CellVisible(player, x, y)
}

// hashSources is FNV-1a over the sight sources' cells and ranges in
// whole cells: what the visible cells depend on (RadiusFogProvider works
// on cells), so a unit moving within its cell changes nothing.
func hashSources(src []sim.SightSource) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range src {
		x, y := sim.CellOf(s.Pos)
		for _, v := range [3]int{x, y, int(s.Range / protocol.CellSize)} {
			h ^= uint64(uint32(v))
			h *= 1099511628211
		}
	}
	return h ^ uint64(len(src))
}
