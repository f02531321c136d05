package fogclient

import (
	"context"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim/bot"
)

// PlayBot lets b play the client's player from the partial world only:
// for every tick whose StateUpdate arrived (PollTick, in order) it reads
// the world the client received and submits the bot's orders. It returns
// once it has played tick ticks (0: until the connection ends), or when
// ctx is done. It consumes PollTick: nothing else may poll the client
// meanwhile.
func PlayBot(ctx context.Context, c *Client, b *bot.Bot, ticks uint64) {
	var orders []protocol.TimestampedOrder
	for {
		select {
		case <-c.Ticked():
		case <-c.Ended():
			return
		case <-ctx.Done():
			return
		}
		done := false
		c.mu.Lock()
		for {
			t, ok := c.core.PollTick()
			if !ok {
				break
			}
			orders = b.Orders(atTick{c.core.World(), t.Tick}, orders[:0])
			for _, o := range orders {
				c.core.SubmitOrder(o)
			}
			done = done || (ticks > 0 && t.Tick >= ticks)
		}
		c.mu.Unlock()
		if done {
			return
		}
	}
}

// atTick is the partial world as the bot sees it at one polled tick (the
// bot thinks on some ticks only; each tick received gets its turn even
// when several arrived together).
type atTick struct {
	*fogauth.PartialWorld
	tick uint64
}

func (w atTick) Tick() uint64 { return w.tick }

var _ bot.World = atTick{}
