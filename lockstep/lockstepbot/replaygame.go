package lockstepbot

import (
	"crypto/sha256"
	"fmt"

	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

// GameName names the game the bots play in a replay's header.
const GameName = "rts"

// NewSim returns the reference game of a room of players at the game
// seed, before its first tick: what every bot plays, and what a replay
// of their match re-simulates.
func NewSim(players int, seed uint64) (*sim.Sim, error) {
	s, _, err := setUp(players, seed)
	return s, err
}

func setUp(players int, seed uint64) (*sim.Sim, sim.Config, error) {
	md, cfg, err := scenario.Generate(scenario.Params{Players: players, Seed: seed})
	if err != nil {
		return nil, cfg, err
	}
	s, err := sim.New(md, cfg, seed)
	return s, cfg, err
}

// GameHashes identifies the reference game of a room of players at seed
// for a replay's header: the SHA-256 of its map as set up (the snapshot
// before the first tick) and of its rules (the configuration); zero if
// the game cannot be set up.
func GameHashes(seed uint64, players int) (mapHash, rulesHash [32]byte) {
	s, cfg, err := setUp(players, seed)
	if err != nil {
		return
	}
	return sha256.Sum256(s.Snapshot()), sha256.Sum256(fmt.Appendf(nil, "%+v", cfg.WithDefaults()))
}
