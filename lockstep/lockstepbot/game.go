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

// lightHash is the state hash every light client reports.
const lightHash = 0x7469636b77697265 // "tickwire"

// lightSim is the light client's stand-in simulation: it applies nothing
// and its hash never changes, so a room of light clients stays in sync.
type lightSim struct{}

func (lightSim) ApplyTick(protocol.TickOrders) error { return nil }
func (lightSim) StateHash() uint64                   { return lightHash }

// lightInput issues one Move order per tick, a typical small order of a
// real match (a group of eight units sent across the map).
type lightInput struct {
	player protocol.PlayerID
	units  []protocol.EntityID
	buf    [1]protocol.TimestampedOrder
}

func newLightInput(player protocol.PlayerID) *lightInput {
	units := make([]protocol.EntityID, 8)
	for i := range units {
		units[i] = protocol.EntityID(uint32(player)<<16 | uint32(i+1))
	}
	return &lightInput{player: player, units: units}
}

func (l *lightInput) Orders(tick uint64) []protocol.TimestampedOrder {
	x := protocol.SimCoord(tick%64) * protocol.CellSize
	l.buf[0] = protocol.TimestampedOrder{
		Player: l.player,
		Order:  protocol.Move{Units: l.units, Target: protocol.WorldPos{X: x, Y: 64*protocol.CellSize - x}},
	}
	return l.buf[:]
}
