package scenario

import (
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
)

// BenchmarkParams is the workload of the simulation benchmarks: 8 players
// with 250 units each (2,000 units) on a 64-cell map, so armies meet fast.
func BenchmarkParams() Params {
	return Params{Players: 8, UnitsPerPlayer: 250, MapSize: 64, Seed: 42}
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
