package sim_test

import (
	"slices"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

// bruteVisible is the definition of radius fog, checked pair by pair.
func bruteVisible(s *sim.Sim, player protocol.PlayerID, sources []sim.SightSource) []protocol.EntityID {
	var out []protocol.EntityID
	for _, e := range s.Entities() {
		seen := e.Owner == player
		ex, ey := sim.CellOf(e.Pos)
		for _, src := range sources {
			sx, sy := sim.CellOf(src.Pos)
			r := int(src.Range / protocol.CellSize)
			if (ex-sx)*(ex-sx)+(ey-sy)*(ey-sy) <= r*r {
				seen = true
				break
			}
		}
		if seen {
			out = append(out, e.ID)
		}
	}
	return out
}

// TestRadiusFogMatchesBruteForce compares the provider with the all-pairs
// definition over many ticks of several generated matches, including ticks
// where sources did not move (the provider's shortcut).
func TestRadiusFogMatchesBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		md, cfg, team := newMatch(t, scenario.Params{Players: int(seed) + 1, UnitsPerPlayer: 30, Seed: seed}, seed)
		s, err := sim.New(md, cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		fog := sim.NewRadiusFogProvider(s)
		compared := 0
		for round := range 40 {
			if round%3 != 2 { // every third round re-checks unchanged sources
				if err := team.Play(s, 7); err != nil {
					t.Fatal(err)
				}
			}
			for p := 0; p <= s.Players(); p++ {
				player := protocol.PlayerID(p)
				src := s.SightSources(player)
				fog.UpdateVisibility(player, src, s.Terrain())
				got, want := fog.VisibleEntities(player), bruteVisible(s, player, src)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d tick %d player %d: fog sees %d entities, brute force %d", seed, s.Tick(), p, len(got), len(want))
				}
				compared += len(want)
			}
		}
		if compared == 0 {
			t.Fatal("nothing visible: the property was not exercised")
		}
	}
}

// TestRadiusFogBatchMatchesBruteForce is the same property for the
// batch path a server takes (UpdateCells, skipped or not, then one
// ListVisible for every player), on maps whose width is not a multiple of
// 64 cells.
func TestRadiusFogBatchMatchesBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		p := scenario.Params{Players: int(seed) + 1, UnitsPerPlayer: 40, Seed: seed, MapSize: 40 + 30*int(seed)}
		md, cfg, team := newMatch(t, p, seed)
		s, err := sim.New(md, cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		fog := sim.NewRadiusFogProvider(s)
		compared := 0
		for round := range 30 {
			if round%3 != 2 {
				if err := team.Play(s, 5); err != nil {
					t.Fatal(err)
				}
			}
			for pl := 1; pl <= s.Players(); pl++ {
				fog.UpdateCells(protocol.PlayerID(pl), s.SightSources(protocol.PlayerID(pl)), s.Terrain())
			}
			fog.ListVisible(s.Players())
			for pl := 1; pl <= s.Players(); pl++ {
				player := protocol.PlayerID(pl)
				got, want := fog.VisibleEntities(player), bruteVisible(s, player, s.SightSources(player))
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d tick %d player %d: fog sees %d entities, brute force %d", seed, s.Tick(), pl, len(got), len(want))
				}
				compared += len(want)
			}
		}
		if compared == 0 {
			t.Fatal("nothing visible: the property was not exercised")
		}
	}
}

// TestRadiusFogCells checks single discs cell by cell, clipped at the map
// edge, including a source with a range of less than a cell.
func TestRadiusFogCells(t *testing.T) {
	md, cfg, _ := newMatch(t, scenario.Params{Players: 1, UnitsPerPlayer: 1, Seed: 1}, 1)
	s, err := sim.New(md, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	fog := sim.NewRadiusFogProvider(s)
	n := s.Terrain().Width()
	for _, src := range []sim.SightSource{
		{Pos: sim.CellCenter(0, 0), Range: 5 * protocol.CellSize},
		{Pos: sim.CellCenter(n/2, n/2), Range: 7*protocol.CellSize + 1000},
		{Pos: sim.CellCenter(n-1, 3), Range: 300},
	} {
		fog.UpdateVisibility(1, []sim.SightSource{src}, s.Terrain())
		sx, sy := sim.CellOf(src.Pos)
		r := int(src.Range / protocol.CellSize)
		for y := range n {
			for x := range n {
				want := (x-sx)*(x-sx)+(y-sy)*(y-sy) <= r*r
				if got := fog.CellVisible(1, x, y); got != want {
					t.Fatalf("source %v: cell (%d,%d) visible %v, want %v", src, x, y, got, want)
				}
			}
		}
	}
}

// TestAllSightSourcesMatchesPerPlayer compares the one-pass listing with
// each player's own over a played match.
func TestAllSightSourcesMatchesPerPlayer(t *testing.T) {
	md, cfg, team := newMatch(t, scenario.Params{Players: 3, UnitsPerPlayer: 20, Seed: 3}, 3)
	s, err := sim.New(md, cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	var all [][]sim.SightSource
	for range 20 {
		if err := team.Play(s, 5); err != nil {
			t.Fatal(err)
		}
		all = s.AllSightSources(all)
		if len(all) != s.Players()+1 || len(all[0]) != 0 {
			t.Fatalf("%d lists, %d sources for player 0", len(all), len(all[0]))
		}
		for p := 1; p <= s.Players(); p++ {
			want := s.SightSources(protocol.PlayerID(p))
			if !slices.Equal(all[p], want) || len(want) == 0 {
				t.Fatalf("tick %d player %d: %d sources, want %d", s.Tick(), p, len(all[p]), len(want))
			}
		}
	}
}
