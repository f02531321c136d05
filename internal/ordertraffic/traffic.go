package ordertraffic

import (
	"math/rand/v2"
	"slices"

	"github.com/tickwire/tickwire/protocol"
)

// Model parameterises the generated traffic. The zero value is the model
// described in the package documentation with seed 0.
type Model struct {
	Seed            uint64
	Players         int     // default 8
	TicksPerSecond  int     // default 30
	Ticks           int     // default 10,000
	OrderTickRate   float64 // default 0.20
	SecondOrderRate float64 // default 0.15
}

func (m Model) withDefaults() Model {
	if m.Players <= 0 {
		m.Players = 8
	}
	if m.TicksPerSecond <= 0 {
		m.TicksPerSecond = 30
	}
	if m.Ticks <= 0 {
		m.Ticks = 10_000
	}
	if m.OrderTickRate <= 0 {
		m.OrderTickRate = 0.20
	}
	if m.SecondOrderRate <= 0 {
		m.SecondOrderRate = 0.15
	}
	return m
}

const (
	mapCells       = 128
	unitsPerPlayer = 300
	controlGroups  = 4
	maxGroupSize   = 12
	nearCells      = 8
)

type player struct {
	id        protocol.PlayerID
	groups    [controlGroups][]protocol.EntityID
	selection []protocol.EntityID
	lastCell  [2]int32
}

// Generate returns the ticks of the model, starting at tick 1. Every tick
// is present, most with no orders.
func Generate(m Model) []protocol.TickOrders {
	m = m.withDefaults()
	rng := rand.New(rand.NewPCG(m.Seed, 0x7469636b77697265))
	window := uint32(1_000_000 / m.TicksPerSecond)
	players := make([]*player, m.Players)
	for i := range players {
		p := &player{id: protocol.PlayerID(i)}
		for g := range p.groups {
			p.groups[g] = pickGroup(rng, i)
		}
		p.selection = p.groups[0]
		p.lastCell = [2]int32{rng.Int32N(mapCells), rng.Int32N(mapCells)}
		players[i] = p
	}
	ticks := make([]protocol.TickOrders, m.Ticks)
	for t := range ticks {
		ticks[t].Tick = uint64(t + 1)
		var orders []protocol.TimestampedOrder
		for _, p := range players {
			if rng.Float64() >= m.OrderTickRate {
				continue
			}
			n := 1
			if rng.Float64() < m.SecondOrderRate {
				n = 2
			}
			for range n {
				orders = append(orders, protocol.TimestampedOrder{
					Player:      p.id,
					Order:       p.order(rng, m.Players),
					SubTickTime: rng.Uint32N(window),
				})
			}
		}
		slices.SortStableFunc(orders, func(a, b protocol.TimestampedOrder) int {
			if a.SubTickTime != b.SubTickTime {
				if a.SubTickTime < b.SubTickTime {
					return -1
				}
				return 1
			}
			return int(a.Player) - int(b.Player)
		})
		ticks[t].Orders = orders
	}
	return ticks
}

// pickGroup chooses 1–12 distinct unit ids of player p, ascending.
func pickGroup(rng *rand.Rand, p int) []protocol.EntityID {
	n := 1 + rng.IntN(maxGroupSize)
	start := rng.IntN(unitsPerPlayer - 3*maxGroupSize)
	ids := make([]protocol.EntityID, 0, n)
	id := start
	for range n {
		id += 1 + rng.IntN(3)
		ids = append(ids, protocol.EntityID(1000*p+1+id))
	}
	return ids
}

func (p *player) order(rng *rand.Rand, players int) protocol.PlayerOrder {
	r := rng.IntN(100)
	if r < 85 && rng.IntN(100) < 35 { // Move or Attack: maybe reselect
		p.selection = p.groups[rng.IntN(controlGroups)]
	}
	switch {
	case r < 70:
		return protocol.Move{Units: p.selection, Target: p.target(rng)}
	case r < 85:
		t := protocol.Target{Kind: protocol.TargetGround, Pos: p.target(rng)}
		if rng.IntN(100) < 60 && players > 1 { // alone, a player has no enemy: ground
			enemy := (int(p.id) + 1 + rng.IntN(players-1)) % players
			t = protocol.Target{Kind: protocol.TargetEntity, Entity: protocol.EntityID(1000*enemy + 1 + rng.IntN(unitsPerPlayer))}
		}
		return protocol.Attack{Units: p.selection, Target: t}
	case r < 93:
		return protocol.Build{Structure: protocol.StructureType(1 + rng.IntN(12)), Pos: p.target(rng)}
	case r < 97:
		return protocol.SetRallyPoint{Building: p.building(rng), Pos: p.target(rng)}
	default:
		return protocol.Sell{Building: p.building(rng)}
	}
}

func (p *player) building(rng *rand.Rand) protocol.EntityID {
	return protocol.EntityID(1000*int(p.id) + 900 + rng.IntN(40))
}

// target picks a cell centre near the previous target most of the time.
func (p *player) target(rng *rand.Rand) protocol.WorldPos {
	if rng.IntN(100) < 75 {
		for i := range p.lastCell {
			c := p.lastCell[i] + rng.Int32N(2*nearCells+1) - nearCells
			p.lastCell[i] = min(max(c, 0), mapCells-1)
		}
	} else {
		p.lastCell = [2]int32{rng.Int32N(mapCells), rng.Int32N(mapCells)}
	}
	half := protocol.CellSize / 2
	return protocol.WorldPos{
		X: protocol.SimCoord(p.lastCell[0])*protocol.CellSize + half,
		Y: protocol.SimCoord(p.lastCell[1])*protocol.CellSize + half,
	}
}
