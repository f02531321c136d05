package bot

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Input is one bot playing on a simulation, in the shape of a game loop's
// order source (lockstep.OrderSource): each call decides the bot's orders
// from Sim's current state. The returned slice is reused by the next call.
type Input struct {
	Bot *Bot
	Sim *sim.Sim
	buf []protocol.TimestampedOrder
}

// Orders returns the bot's orders for the next tick.
func (in *Input) Orders(uint64) []protocol.TimestampedOrder {
	in.buf = in.Bot.Orders(in.Sim, in.buf[:0])
	return in.buf
}
