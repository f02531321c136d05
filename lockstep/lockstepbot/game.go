package lockstepbot

import (
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim/bot"
)

// newGame builds the reference match every bot of a room agrees on: the
// map and the simulation come from the game seed and the room size. A
// fault, if any, is injected into this bot's simulation.
func newGame(roomSize int, player protocol.PlayerID, seed uint64, fault *Fault) (*refGame, lockstep.OrderSource, error) {
	s, err := NewSim(roomSize, seed)
	if err != nil {
		return nil, nil, err
	}
	return &refGame{Sim: s, player: player, fault: fault}, &bot.Input{Bot: bot.New(player, seed), Sim: s}, nil
}
