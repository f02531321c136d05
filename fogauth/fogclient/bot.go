package fogclient

import (
	"context"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim/bot"
)

// PlayBot lets b play the client's player from the partial world only:
// at every new tick it reads the world the client received and submits
// the bot's orders. It returns when the connection ends or ctx is done.
func PlayBot(ctx context.Context, c *Client, b *bot.Bot) {
	var orders []protocol.TimestampedOrder
	for {
		select {
		case <-c.Ticked():
		case <-c.Ended():
			return
		case <-ctx.Done():
			return
		}
		c.mu.Lock()
		orders = b.Orders(c.core.World(), orders[:0])
		for _, o := range orders {
			c.core.SubmitOrder(o)
		}
		c.mu.Unlock()
	}
}

var _ bot.World = (*fogauth.PartialWorld)(nil)
