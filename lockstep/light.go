package lockstep

import "github.com/tickwire/tickwire/protocol"

// LightHash is the state hash every light client reports.
const LightHash = 0x7469636b77697265 // "tickwire"

// LightSim is a light client's stand-in simulation: it applies nothing
// and its hash never changes, so a room of light clients stays in sync.
// Load generators play with it: the relay's work is the same whatever
// the orders mean.
type LightSim struct{}

func (LightSim) ApplyTick(protocol.TickOrders) error { return nil }
func (LightSim) StateHash() uint64                   { return LightHash }

// LightInput issues one Move order per tick, a typical small order of a
// real match (a group of eight units sent across the map).
type LightInput struct {
	player protocol.PlayerID
	units  []protocol.EntityID
	buf    [1]protocol.TimestampedOrder
}

// NewLightInput returns the light orders of player.
func NewLightInput(player protocol.PlayerID) *LightInput {
	units := make([]protocol.EntityID, 8)
	for i := range units {
		units[i] = protocol.EntityID(uint32(player)<<16 | uint32(i+1))
	}
	return &LightInput{player: player, units: units}
}

// Orders implements OrderSource.
func (l *LightInput) Orders(tick uint64) []protocol.TimestampedOrder {
	x := protocol.SimCoord(tick%64) * protocol.CellSize
	l.buf[0] = protocol.TimestampedOrder{
		Player: l.player,
		Order:  protocol.Move{Units: l.units, Target: protocol.WorldPos{X: x, Y: 64*protocol.CellSize - x}},
	}
	return l.buf[:]
}
