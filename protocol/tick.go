package protocol

import (
	"cmp"
	"slices"
)

// TimestampedOrder is an order with its sub-tick time: microseconds from the
// start of the tick window (0 = tick start). In relay modes the client's value
// is a timing hint that the relay normalises before broadcasting.
type TimestampedOrder struct {
	Player      PlayerID
	Order       PlayerOrder
	SubTickTime uint32
}

// TickOrders is every order of one simulation tick: the unit the relay
// broadcasts and the simulation applies.
type TickOrders struct {
	Tick   uint64
	Orders []TimestampedOrder
}

// Chronological returns pointers to t's orders sorted by (SubTickTime,
// Player), the order in which the simulation applies them. Orders of one
// player with equal times keep their submission order, so the result is
// fully deterministic. The result reuses scratch's storage: pass the previous
// result back in to avoid allocating every tick. The pointers alias t.Orders.
func (t *TickOrders) Chronological(scratch []*TimestampedOrder) []*TimestampedOrder {
	scratch = scratch[:0]
	for i := range t.Orders {
		scratch = append(scratch, &t.Orders[i])
	}
	slices.SortStableFunc(scratch, CompareChronological)
	return scratch
}

// CompareChronological orders two orders by (SubTickTime, Player): the
// comparison Chronological sorts by, for use with a stable sort.
func CompareChronological(a, b *TimestampedOrder) int {
	if c := cmp.Compare(a.SubTickTime, b.SubTickTime); c != 0 {
		return c
	}
	return cmp.Compare(a.Player, b.Player)
}
