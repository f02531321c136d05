package rtsgame

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
)

// Partial is what the RTS's bot reads of a fog client's world
// (fogauth.PartialWorld has it).
type Partial = interface {
	Tick() uint64
	Entities() []protocol.EntityState
}

// World shows a fog client's partial world, at one tick, to the RTS's
// bot: the entities the client received, the static map, and unknown
// credits.
type World struct {
	Partial Partial
	At      uint64 // the tick the bot plays
	Map     *sim.Terrain
}

var _ bot.World = World{}

func (w World) Tick() uint64                     { return w.At }
func (w World) Entities() []protocol.EntityState { return w.Partial.Entities() }
func (w World) Terrain() *sim.Terrain            { return w.Map }

// Credits is unknown to a fog-authoritative client: the wire format does
// not carry them. It reports a large balance, so the bot attempts what it
// wants and the server's validation answers with rejections.
func (w World) Credits(protocol.PlayerID) int32 { return 1 << 30 }

// Bot is the RTS's bot as a fog client's mind (fogclient.Mind): it plays
// from the partial world only.
type Bot struct {
	Bot *bot.Bot
	Map *sim.Terrain
}

// Orders appends the bot's orders for tick, chosen from w.
func (b Bot) Orders(w Partial, tick uint64, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	return b.Bot.Orders(World{Partial: w, At: tick, Map: b.Map}, dst)
}
