package sim_test

import (
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// battle is the benchmark workload: 8 players with 250 units each on a
// 64-cell map, played by bots until the armies are engaged.
func battle(b *testing.B) (*sim.Sim, bot.Team) {
	b.Helper()
	p := scenario.Params{Players: 8, UnitsPerPlayer: 250, MapSize: 64, Seed: 42}
	md, cfg, err := scenario.Generate(p)
	if err != nil {
		b.Fatal(err)
	}
	s, err := sim.New(md, cfg, 42)
	if err != nil {
		b.Fatal(err)
	}
	team := bot.NewTeam(p.Players, 42)
	if err := team.Play(s, 120); err != nil {
		b.Fatal(err)
	}
	return s, team
}

// BenchmarkTick measures ApplyTick with 8 players and about 2,000 units in
// combat, bot orders included. Every 100 ticks the battle is restored to its
// starting snapshot (untimed) so the unit count stays near 2,000.
func BenchmarkTick(b *testing.B) {
	s, team := battle(b)
	start := s.Snapshot()
	var orders []protocol.TimestampedOrder
	b.ReportMetric(float64(len(s.Entities())), "entities")
	b.ResetTimer()
	for i := range b.N {
		if i%100 == 99 {
			b.StopTimer()
			if err := s.Restore(start); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		orders = team.Orders(s, orders[:0])
		if err := s.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: orders}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStateHash(b *testing.B) {
	s, _ := battle(b)
	b.ReportMetric(float64(len(s.Entities())), "entities")
	b.ResetTimer()
	for range b.N {
		s.StateHash()
	}
}

// BenchmarkFogUpdate measures one tick's fog work for 8 players: their sight
// sources, UpdateVisibility and VisibleEntities.
func BenchmarkFogUpdate(b *testing.B) {
	s, team := battle(b)
	fog := sim.NewRadiusFogProvider(s)
	var src []sim.SightSource
	// Advance one tick between updates outside the timer so sources move
	// and the unchanged-sources shortcut does not flatter the figure.
	b.ReportMetric(float64(len(s.Entities())), "entities")
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		team.Play(s, 1)
		b.StartTimer()
		for p := 1; p <= s.Players(); p++ {
			src = s.AppendSightSources(src[:0], protocol.PlayerID(p))
			fog.UpdateVisibility(protocol.PlayerID(p), src, s.Terrain())
			_ = fog.VisibleEntities(protocol.PlayerID(p))
		}
	}
}
