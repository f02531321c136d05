package bot_test

import (
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// TestBotsAreDeterministic plays the same match twice and compares every
// order, and checks the bots give every kind of order with in-window hints.
func TestBotsAreDeterministic(t *testing.T) {
	md, cfg, err := scenario.Generate(scenario.Params{Players: 3, UnitsPerPlayer: 30, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	play := func() ([][]protocol.TimestampedOrder, map[protocol.OrderKind]int) {
		s, err := sim.New(md, cfg, 4)
		if err != nil {
			t.Fatal(err)
		}
		team := bot.NewTeam(3, 4)
		var all [][]protocol.TimestampedOrder
		kinds := map[protocol.OrderKind]int{}
		for range 1500 {
			orders := team.Orders(s, nil)
			for _, o := range orders {
				kinds[o.Order.OrderKind()]++
				if o.SubTickTime >= bot.TickWindow || o.Player < 1 || o.Player > 3 {
					t.Fatalf("order %+v out of range", o)
				}
			}
			all = append(all, orders)
			if err := s.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: orders}); err != nil {
				t.Fatal(err)
			}
		}
		return all, kinds
	}
	a, kinds := play()
	b, _ := play()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("bots issued different orders on the same match")
	}
	for _, k := range []protocol.OrderKind{protocol.KindMove, protocol.KindAttack, protocol.KindBuild, protocol.KindSetRallyPoint} {
		if kinds[k] == 0 {
			t.Errorf("no %v orders in 1500 ticks (%v)", k, kinds)
		}
	}
}
