package main

import (
	"fmt"
	"testing"

	"github.com/tickwire/tickwire/internal/golden"
	"github.com/tickwire/tickwire/protocol"
)

// TestGolden pins the game every lockstep client simulates: two bots
// play 12 ticks (a side has won by then); the state hash is recorded
// every tick. Clients on
// different architectures must agree, so CI runs it with GOARCH=386
// too.
func TestGolden(t *testing.T) {
	g := NewGame(2)
	bots := []*Bot{{Player: 1, Game: g}, {Player: 2, Game: g}}
	var lines []string
	for tick := uint64(1); tick <= 12; tick++ {
		var orders []protocol.TimestampedOrder
		for _, b := range bots {
			orders = append(orders, b.Orders(tick)...)
		}
		if err := g.ApplyTick(protocol.TickOrders{Tick: tick, Orders: orders}); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("tick %d hash %016x alive %d %d", tick, g.StateHash(), g.Alive(1), g.Alive(2)))
	}
	golden.Check(t, "golden_hashes.txt", lines)
}
