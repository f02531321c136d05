package sim

import (
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

// testMap is a small hand-made match: a 24x24 map with a rock wall, two
// players with a base and a few units each, a derrick and a tree.
func testMap() MapData {
	const n = 24
	m := MapData{Width: n, Height: n, Cells: make([]Cell, n*n), Players: 2}
	for y := range n {
		for x := range n {
			m.Cells[y*n+x] = NewCell(uint8((x+y)%5), x == 12 && y > 3 && y < 20)
		}
	}
	at := func(x, y int) protocol.WorldPos { return CellCenter(x, y) }
	m.Entities = []Placement{
		{TypeHQ, 1, at(3, 3)}, {TypeBarracks, 1, at(5, 3)}, {TypeTurret, 1, at(3, 5)},
		{TypeHQ, 2, at(20, 20)}, {TypeFactory, 2, at(18, 20)}, {TypeTurret, 2, at(20, 18)},
		{TypeOilDerrick, Neutral, at(12, 2)}, {TypeTree, Neutral, at(12, 10)},
	}
	for k := range 6 {
		m.Entities = append(m.Entities,
			Placement{TypeInfantry, 1, at(6+k%3, 6+k/3)},
			Placement{TypeTank, 2, at(16+k%3, 16+k/3)})
	}
	return m
}

func newTestSim(t testing.TB) *Sim {
	t.Helper()
	s, err := New(testMap(), Config{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fight sends both armies at each other's HQ and runs n ticks.
func runFight(t testing.TB, s *Sim, n int) {
	t.Helper()
	var p1, p2 []protocol.EntityID
	for _, e := range s.Entities() {
		if CategoryOf(&e) == CategoryUnit {
			if e.Owner == 1 {
				p1 = append(p1, e.ID)
			} else {
				p2 = append(p2, e.ID)
			}
		}
	}
	orders := []protocol.TimestampedOrder{
		{Player: 1, Order: protocol.Attack{Units: p1, Target: protocol.Target{Kind: protocol.TargetGround, Pos: CellCenter(20, 20)}}},
		{Player: 2, Order: protocol.Attack{Units: p2, Target: protocol.Target{Kind: protocol.TargetGround, Pos: CellCenter(3, 3)}}, SubTickTime: 5},
	}
	for i := range n {
		var o []protocol.TimestampedOrder
		if i == 0 {
			o = orders
		}
		if err := s.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: o}); err != nil {
			t.Fatal(err)
		}
	}
}
