package main

import (
	"fmt"
	"hash/fnv"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/predictserver"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim/action"
)

// predictionGame is the game of prediction rooms and clients: the
// reference action game at the room's tick rate on an arena of the given
// side (0: the game's default, 48 units), so server and clients share its
// rules.
func predictionGame(tickRate, arena int, seed uint64) predict.Game {
	return actiongame.New(action.Config{TickRate: tickRate, ArenaSize: arena, MaxPlayers: 255}, seed)
}

// predictionFile is the [relay.prediction] table: the prediction
// model's settings. A zero field is unset (the predict.ServerConfig
// default).
type predictionFile struct {
	TickRate      int    `toml:"tick_rate"`      // the server's tick rate if unset
	MaxRoomSize   int    `toml:"max_room_size"`  // 32
	SnapshotEvery int    `toml:"snapshot_every"` // ticks between snapshots; 1
	FullEvery     int    `toml:"full_every"`     // ticks between full snapshots at most; 2 s
	MaxAhead      int    `toml:"max_ahead"`      // ticks an input may be scheduled ahead; 0.5 s
	MaxInputRate  int    `toml:"max_input_rate"` // inputs per second per client; 2 × tick rate
	LateInputs    string `toml:"late_inputs"`    // "apply_next" (default) or "reject"
	// ArenaSize is the side of the reference game's arena in units (48);
	// clients must play the same (bot --mode predict plays 48).
	ArenaSize int `toml:"arena_size"`
	// InterestRadius turns interest management on: each client receives
	// the entities within this many units of its avatar (with hysteresis),
	// those on a line of fire to it and its own; 0 sends every entity.
	InterestRadius float64 `toml:"interest_radius"`
}

func (p predictionFile) check() error {
	for _, c := range []struct {
		key    string
		v, max int
	}{
		{"relay.prediction.tick_rate", p.TickRate, 1000},
		{"relay.prediction.max_room_size", p.MaxRoomSize, 255},
		{"relay.prediction.snapshot_every", p.SnapshotEvery, 1 << 16},
		{"relay.prediction.full_every", p.FullEvery, 1 << 20},
		{"relay.prediction.max_ahead", p.MaxAhead, 1 << 16},
		{"relay.prediction.max_input_rate", p.MaxInputRate, 1 << 20},
		{"relay.prediction.arena_size", p.ArenaSize, 4096},
	} {
		if c.v < 0 || c.v > c.max {
			return fmt.Errorf("%s: %d is outside 0..%d", c.key, c.v, c.max)
		}
	}
	if p.InterestRadius < 0 || p.InterestRadius > 1e6 {
		return fmt.Errorf("relay.prediction.interest_radius: %g is outside 0..1e6", p.InterestRadius)
	}
	switch p.LateInputs {
	case "", "apply_next", "reject":
		return nil
	}
	return fmt.Errorf("relay.prediction.late_inputs: %q is neither \"apply_next\" nor \"reject\"", p.LateInputs)
}

// model is the prediction network model these settings describe.
func (p predictionFile) model() room.Model {
	cfg := predictserver.Config{MaxRoomSize: p.MaxRoomSize, Server: predict.ServerConfig{
		TickRate: p.TickRate, SnapshotEvery: p.SnapshotEvery, FullEvery: p.FullEvery,
		MaxAhead: p.MaxAhead, MaxInputRate: p.MaxInputRate, Interest: predict.InterestConfig{Radius: p.InterestRadius}}}
	if p.LateInputs == "reject" {
		cfg.Server.Late = predict.LateReject
	}
	return predictionModelOf(cfg, p.ArenaSize)
}

// predictionModel is the prediction network model with default settings,
// its rooms at tickRate (0: the server's).
func predictionModel(tickRate int) room.Model {
	return predictionFile{TickRate: tickRate}.model()
}

// predictionModelOf completes cfg with the reference game on an arena
// of the given side (0: the default).
func predictionModelOf(cfg predictserver.Config, arena int) room.Model {
	cfg.NewGame = func(name string, tickRate int) predict.Game {
		h := fnv.New64a()
		h.Write([]byte(name))
		return predictionGame(tickRate, arena, h.Sum64())
	}
	return predictserver.Model(cfg)
}
