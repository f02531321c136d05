package scenario_test

import (
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

func TestGenerateIsDeterministic(t *testing.T) {
	p := scenario.Params{Players: 6, UnitsPerPlayer: 40, Seed: 9}
	a, ca, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	b, cb, _ := scenario.Generate(p)
	if !reflect.DeepEqual(a, b) || ca != cb {
		t.Fatal("same parameters gave different matches")
	}
	p.Seed = 10
	c, _, _ := scenario.Generate(p)
	if reflect.DeepEqual(a.Cells, c.Cells) {
		t.Fatal("different seeds gave the same map")
	}
}

func TestGeneratedMatchesStart(t *testing.T) {
	for players := 1; players <= 12; players++ {
		p := scenario.Params{Players: players, UnitsPerPlayer: 5 * players, Seed: uint64(players)}
		md, cfg, err := scenario.Generate(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.New(md, cfg, 1)
		if err != nil {
			t.Fatalf("%d players: %v", players, err)
		}
		units := make([]int, players+1)
		hq := make([]int, players+1)
		for _, e := range s.Entities() {
			switch {
			case sim.CategoryOf(&e) == sim.CategoryUnit:
				units[e.Owner]++
			case e.Type == sim.TypeHQ:
				hq[e.Owner]++
			}
		}
		for owner := 1; owner <= players; owner++ {
			if units[owner] != p.UnitsPerPlayer || hq[owner] != 1 {
				t.Fatalf("%d players: player %d has %d units and %d HQs", players, owner, units[owner], hq[owner])
			}
		}
	}
}

func TestGenerateRejectsBadParams(t *testing.T) {
	for _, p := range []scenario.Params{{Players: sim.MaxPlayers + 1}, {MapSize: 5}, {MapSize: sim.MaxMapSize + 1}} {
		if _, _, err := scenario.Generate(p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
