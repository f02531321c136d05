package bot

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Team is one bot per player, in player order.
type Team []*Bot

// NewTeam returns bots for players 1..players, seeded from seed.
func NewTeam(players int, seed uint64) Team {
	t := make(Team, players)
	for i := range t {
		t[i] = New(protocol.PlayerID(i+1), seed)
	}
	return t
}

// Orders appends every bot's orders for the tick s is about to simulate.
func (t Team) Orders(s *sim.Sim, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	for _, b := range t {
		dst = b.Orders(s, dst)
	}
	return dst
}

// Play runs ticks ticks of s with the team's orders applied on the tick they
// are given, as a single-player game with zero input delay would.
func (t Team) Play(s *sim.Sim, ticks int) error {
	var orders []protocol.TimestampedOrder
	for range ticks {
		orders = t.Orders(s, orders[:0])
		if err := s.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: orders}); err != nil {
			return err
		}
	}
	return nil
}
