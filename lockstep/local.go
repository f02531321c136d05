package lockstep

import "github.com/tickwire/tickwire/protocol"

// LocalNetwork is the single-player network model: every submitted order
// lands in the very next tick, with no delay and no peer. It is also the
// reference model tests compare networked games against.
//
// The zero value starts at tick 0, the first tick of a new simulation.
type LocalNetwork struct {
	next    uint64 // the tick PollTick hands out next
	pending []protocol.TimestampedOrder
	diag    Diagnostics
	ended   bool
}

// SubmitOrder implements NetworkModel.
func (n *LocalNetwork) SubmitOrder(o protocol.TimestampedOrder) {
	n.pending = append(n.pending, o)
	n.diag.OrdersSent++
}

// PollTick implements NetworkModel: it is always ready, and the tick carries
// every order submitted since the previous one.
func (n *LocalNetwork) PollTick() (protocol.TickOrders, bool) {
	if n.ended {
		return protocol.TickOrders{}, false
	}
	t := protocol.TickOrders{Tick: n.next, Orders: n.pending}
	n.pending = nil
	n.diag.Tick = n.next
	n.next++
	return t, true
}

// ReportSyncHash implements NetworkModel; alone, there is nobody to disagree.
func (n *LocalNetwork) ReportSyncHash(tick, hash uint64) {}

// End stops handing out ticks.
func (n *LocalNetwork) End() { n.ended = true }

// Status implements NetworkModel.
func (n *LocalNetwork) Status() Status {
	if n.ended {
		return StatusEnded
	}
	return StatusPlaying
}

// Diagnostics implements NetworkModel.
func (n *LocalNetwork) Diagnostics() Diagnostics { return n.diag }
