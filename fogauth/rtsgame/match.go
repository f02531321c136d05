package rtsgame

import (
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

// Start generates the RTS's map for players seats with unitsPerPlayer
// starting units (0: the scenario's default) from the public mapSeed, and
// starts the game with the secret simSeed. mapSize is the map's side, for
// the clients' MatchStart. fogserver.Config.NewGame calls it:
//
//	NewGame: func(players, units int, mapSeed, simSeed uint64) (fogauth.Game, int, error) {
//		return rtsgame.Start(players, units, mapSeed, simSeed)
//	}
func Start(players, unitsPerPlayer int, mapSeed, simSeed uint64) (game *Game, mapSize int, err error) {
	sp := scenario.Params{Players: players, UnitsPerPlayer: unitsPerPlayer, Seed: mapSeed}.WithDefaults()
	md, rules, err := scenario.Generate(sp)
	if err != nil {
		return nil, 0, err
	}
	g, err := New(md, rules, simSeed)
	return g, sp.MapSize, err
}

// Terrain is the static map a client needs to play the match its
// MatchStart describes, built as the server built it.
func Terrain(players, unitsPerPlayer, mapSize int, mapSeed uint64) (*sim.Terrain, error) {
	md, rules, err := scenario.Generate(scenario.Params{Players: players, UnitsPerPlayer: unitsPerPlayer, MapSize: mapSize, Seed: mapSeed})
	if err != nil {
		return nil, err
	}
	s, err := sim.New(md, rules, mapSeed)
	if err != nil {
		return nil, err
	}
	return s.Terrain(), nil
}
