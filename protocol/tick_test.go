package protocol_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

func TestChronological(t *testing.T) {
	tk := protocol.TickOrders{Tick: 1, Orders: []protocol.TimestampedOrder{
		{Player: 2, SubTickTime: 500, Order: protocol.Sell{Building: 1}},
		{Player: 1, SubTickTime: 500, Order: protocol.Sell{Building: 2}},
		{Player: 0, SubTickTime: 900, Order: protocol.Idle{}},
		{Player: 1, SubTickTime: 500, Order: protocol.Sell{Building: 3}},
		{Player: 3, SubTickTime: 10, Order: protocol.Idle{}},
	}}
	got := tk.Chronological(nil)
	var order []int
	for _, o := range got {
		order = append(order, int(o.Player)*10+buildingOf(o.Order))
	}
	// (10, p3) < (500, p1, first) < (500, p1, second) < (500, p2) < (900, p0)
	if want := []int{30, 12, 13, 21, 0}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if got[0] != &tk.Orders[4] {
		t.Fatal("Chronological must point into t.Orders")
	}
}

func buildingOf(o protocol.PlayerOrder) int {
	if s, ok := o.(protocol.Sell); ok {
		return int(s.Building)
	}
	return 0
}

// TestChronologicalMatchesBruteForce compares with a selection sort that
// picks the smallest (time, player, index) each round.
func TestChronologicalMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var scratch []*protocol.TimestampedOrder
	for range 500 {
		tk := protocol.TickOrders{}
		for range rng.IntN(30) {
			tk.Orders = append(tk.Orders, protocol.TimestampedOrder{
				Player: protocol.PlayerID(rng.IntN(4)), SubTickTime: uint32(rng.IntN(5)), Order: protocol.Idle{},
			})
		}
		scratch = tk.Chronological(scratch)
		used := make([]bool, len(tk.Orders))
		for k := range tk.Orders {
			best := -1
			for i := range tk.Orders {
				if used[i] {
					continue
				}
				if best < 0 || earlier(tk.Orders[i], tk.Orders[best]) {
					best = i
				}
			}
			used[best] = true
			if scratch[k] != &tk.Orders[best] {
				t.Fatalf("position %d: got %+v, want index %d", k, *scratch[k], best)
			}
		}
	}
}

func earlier(a, b protocol.TimestampedOrder) bool {
	return a.SubTickTime < b.SubTickTime || a.SubTickTime == b.SubTickTime && a.Player < b.Player
}

func TestChronologicalReusesScratch(t *testing.T) {
	tk := protocol.TickOrders{Orders: make([]protocol.TimestampedOrder, 64)}
	for i := range tk.Orders {
		tk.Orders[i] = protocol.TimestampedOrder{Player: protocol.PlayerID(i % 8), SubTickTime: uint32(64 - i), Order: protocol.Idle{}}
	}
	scratch := tk.Chronological(nil)
	if n := testing.AllocsPerRun(100, func() { scratch = tk.Chronological(scratch) }); n != 0 {
		t.Fatalf("Chronological allocated %v times with a large enough scratch", n)
	}
}
