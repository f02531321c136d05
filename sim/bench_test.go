package sim_test

import (
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// battle is the benchmark workload: 8 players with about 2,000 units,
// played by bots until the armies are engaged.
func battle(b *testing.B) (*sim.Sim, bot.Team) {
	b.Helper()
	s, team, err := scenario.Battle(scenario.BenchmarkParams(), scenario.BattleWarmup)
	if err != nil {
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
	entities, units := len(s.Entities()), scenario.Units(s)
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
	b.ReportMetric(float64(entities), "entities")
	b.ReportMetric(float64(units), "units")
}

func BenchmarkStateHash(b *testing.B) {
	s, _ := battle(b)
	entities, units := len(s.Entities()), scenario.Units(s)
	b.ResetTimer()
	for range b.N {
		s.StateHash()
	}
	b.ReportMetric(float64(entities), "entities")
	b.ReportMetric(float64(units), "units")
}

// BenchmarkFogUpdate measures one tick's fog work for 8 players: their sight
// sources, UpdateVisibility and VisibleEntities.
func BenchmarkFogUpdate(b *testing.B) {
	s, team := battle(b)
	start := s.Snapshot()
	fog := sim.NewRadiusFogProvider(s)
	var src []sim.SightSource
	entities, units := len(s.Entities()), scenario.Units(s)
	b.ResetTimer()
	for i := range b.N {
		// Advance one tick between updates, untimed, so sources move and
		// the unchanged-sources shortcut does not flatter the figure; go
		// back to the start of the battle every 100 ticks.
		b.StopTimer()
		if i%100 == 99 {
			if err := s.Restore(start); err != nil {
				b.Fatal(err)
			}
		}
		if err := team.Play(s, 1); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for p := 1; p <= s.Players(); p++ {
			src = s.AppendSightSources(src[:0], protocol.PlayerID(p))
			fog.UpdateVisibility(protocol.PlayerID(p), src, s.Terrain())
			_ = fog.VisibleEntities(protocol.PlayerID(p))
		}
	}
	b.ReportMetric(float64(entities), "entities")
	b.ReportMetric(float64(units), "units")
}
