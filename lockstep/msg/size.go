package msg

import (
	"encoding/binary"
	"math"
)

// Bounds of a TickFrame's parts, for MaxTickFrameSize.
const (
	// frameHeaderMax is the type byte, tick, token, flags, run-ahead and
	// the two array headers (removals, packets).
	frameHeaderMax = 1 + binary.MaxVarintLen64 + 4 + 1 + 1 + 2*binary.MaxVarintLen32
	// removalMax is one removal: player, tick and reason.
	removalMax = binary.MaxVarintLen16 + binary.MaxVarintLen64 + 1
)

// MaxTickFrameSize is an upper bound of the encoded size of any TickFrame
// of a match of players under the codec's limits: a removal per player,
// and orders up to the per-player ceiling for each player (an Idle for a
// player without orders), never more than the per-tick ceiling. The order
// encoder starts a packet only for an order that did not fit the one
// before, so there is at most one packet per order, each at most
// MaxPacketSize bytes plus its length prefix.
func (c Codec) MaxTickFrameSize(players int) int {
	lim := c.Limits.WithDefaults()
	return tickFrameBound(players, min(players*lim.MaxOrdersPerPlayerPerTick, lim.MaxOrdersPerTick), lim.MaxPacketSize)
}

func tickFrameBound(removals, orders, packetSize int) int {
	packets := max(orders, 1)
	return frameHeaderMax + removals*removalMax + packets*(binary.MaxVarintLen32+packetSize)
}

// maxEncodedTickFrame caps the builder of a TickFrame: any frame within
// the codec's limits fits, even one listing every player id as removed.
func (c Codec) maxEncodedTickFrame(removals int) int {
	lim := c.Limits.WithDefaults()
	return min(tickFrameBound(removals, lim.MaxOrdersPerTick, lim.MaxPacketSize), math.MaxInt32)
}
