package fogclient

import (
	"context"
	"fmt"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/transport"
)

// World is what a Mind reads of the client's partial world
// (fogauth.PartialWorld has it).
type World = interface {
	Tick() uint64
	Entities() []protocol.EntityState
}

// A Mind plays a player from its partial world only: Orders appends its
// orders for tick, chosen from w. A Mind that also implements Observer
// receives the Rejections the client got before each of its turns.
type Mind interface {
	Orders(w World, tick uint64, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder
}

// Observer is a Mind that reads the server's Rejections.
type Observer interface {
	Observe(r fogauth.Rejection)
}

// PlayBot lets m play the client's player from the partial world only:
// for every tick whose StateUpdate arrived (PollTick, in order) it reads
// the world the client received and submits m's orders. It returns once
// it has played tick ticks (0: until the connection ends), or when ctx is
// done. It consumes PollTick: nothing else may poll the client meanwhile.
func PlayBot(ctx context.Context, c *Client, m Mind, ticks uint64) {
	var orders []protocol.TimestampedOrder
	obs, _ := m.(Observer)
	onTicks(ctx, c, func() bool {
		done := false
		c.mu.Lock()
		defer c.mu.Unlock()
		if obs != nil {
			c.observeRejections(obs)
		}
		for {
			t, ok := c.core.PollTick()
			if !ok {
				return done
			}
			orders = m.Orders(c.core.World(), t.Tick, orders[:0])
			for _, o := range orders {
				c.core.SubmitOrder(o)
			}
			done = done || (ticks > 0 && t.Tick >= ticks)
		}
	})
}

// onTicks calls f each time new ticks arrived, until f returns true, the
// match is over (f then sees the last ticks), the connection ends or ctx
// is done.
func onTicks(ctx context.Context, c *Client, f func() (stop bool)) {
	for {
		select {
		case <-c.Ticked():
		case <-c.Over():
			f()
			return
		case <-c.Ended():
			return
		case <-ctx.Done():
			return
		}
		if f() {
			return
		}
	}
}

// Redial opens a new connection to the server for a rejoin.
type Redial func(ctx context.Context) (*transport.Conn, error)

// PlayBotRejoining plays like PlayBot and, whenever the connection ends
// before the match does (no MatchEnd arrived), dials a new connection and
// takes the seat again with the client's ticket (Rejoin), at most
// maxRejoins times; the mind plays on from the new client's partial world,
// which the server fills again from empty. It returns the client it ended
// on (the caller closes it; c is closed once replaced) and the rejoins
// made; the error says why a rejoin failed.
func PlayBotRejoining(ctx context.Context, c *Client, m Mind, ticks uint64, dial Redial, cfg Config, maxRejoins int) (*Client, int, error) {
	rejoins := 0
	for {
		PlayBot(ctx, c, m, ticks)
		if ctx.Err() != nil || !c.lost() || rejoins == maxRejoins {
			return c, rejoins, nil
		}
		t, ok := c.Ticket()
		if !ok {
			return c, rejoins, fmt.Errorf("fogclient: player %d has no rejoin ticket", c.Player())
		}
		conn, err := dial(ctx)
		if err != nil {
			return c, rejoins, err
		}
		next, err := Rejoin(ctx, conn, t, cfg)
		if err != nil {
			return c, rejoins, err
		}
		c.Close()
		c = next
		rejoins++
		c.log.Info("fogclient: rejoined", "player", c.Player(), "rejoins", rejoins)
	}
}

// lost reports whether the connection ended before the match did.
func (c *Client) lost() bool {
	select {
	case <-c.done:
	default:
		return false
	}
	_, _, ended := c.End()
	return !ended
}

// Watch consumes the client's ticks (PollTick) until the match is over,
// the connection ends or ctx is done: the loop of a spectator that reads the partial world
// when it likes (WithWorld) rather than tick by tick.
func Watch(ctx context.Context, c *Client) {
	onTicks(ctx, c, func() bool {
		for {
			if _, ok := c.PollTick(); !ok {
				return false
			}
		}
	})
}

// Observed hands obs the Rejections received since its last turn, then
// calls f with the partial world: what a prober does once the match
// ended (every Rejection arrived before the MatchEnd).
func (c *Client) Observed(obs Observer, f func(w *fogauth.PartialWorld)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.observeRejections(obs)
	f(c.core.World())
}

func (c *Client) observeRejections(obs Observer) {
	c.rejects = c.core.TakeRejections(c.rejects[:0])
	for _, r := range c.rejects {
		obs.Observe(r)
	}
}
