package scenario

import (
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
)

// BenchmarkParams is the workload of the simulation benchmarks: 8 players
// with 280 units each on a 64-cell map, so armies meet fast and about 2,000
// units are alive and fighting when the warm-up ends.
func BenchmarkParams() Params {
	return Params{Players: 8, UnitsPerPlayer: 280, MapSize: 64, Seed: 42}
}

// Units counts the units alive in s.
func Units(s *sim.Sim) int {
	n := 0
	for _, e := range s.Entities() {
		if sim.CategoryOf(&e) == sim.CategoryUnit {
			n++
		}
	}
	return n
}

// BattleWarmup is how many ticks Battle plays before handing the match
// over: long enough for the armies of BenchmarkParams to be engaged.
const BattleWarmup = 120

// Battle generates a match from p, starts it with game seed p.Seed and
// plays warmup ticks with a bot team seeded from p.Seed.
func Battle(p Params, warmup int) (*sim.Sim, bot.Team, error) {
	md, cfg, err := Generate(p)
	if err != nil {
		return nil, nil, err
	}
	s, err := sim.New(md, cfg, p.Seed)
	if err != nil {
		return nil, nil, err
	}
	team := bot.NewTeam(md.Players, p.Seed)
	if err := team.Play(s, warmup); err != nil {
		return nil, nil, err
	}
	return s, team, nil
}
