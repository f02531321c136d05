package main

import "github.com/tickwire/tickwire/protocol"

// Bot plays one player from the game state every client holds: each
// tick, each of its units attacks an adjacent enemy or steps toward the
// nearest one. It implements lockstep.OrderSource.
type Bot struct {
	Player protocol.PlayerID
	Game   *Game
}

// Orders gives the bot's orders for the next tick.
func (b *Bot) Orders(uint64) []protocol.TimestampedOrder {
	var out []protocol.TimestampedOrder
	g := b.Game
	for i, u := range g.units {
		if u.owner != b.Player || u.health <= 0 {
			continue
		}
		target, dist := -1, boardSize*2
		for j, e := range g.units {
			if e.owner == b.Player || e.health <= 0 {
				continue
			}
			if d := max(u.x-e.x, e.x-u.x) + max(u.y-e.y, e.y-u.y); d < dist {
				target, dist = j, d
			}
		}
		if target < 0 {
			break
		}
		e := g.units[target]
		var o protocol.Custom
		if max(u.x-e.x, e.x-u.x) <= 1 && max(u.y-e.y, e.y-u.y) <= 1 {
			o = Attack(i, target)
		} else {
			o = Move(i, int8(sign(e.x-u.x)), int8(sign(e.y-u.y)))
		}
		out = append(out, protocol.TimestampedOrder{Player: b.Player, Order: o})
	}
	return out
}

func sign(v int) int { return max(min(v, 1), -1) }
