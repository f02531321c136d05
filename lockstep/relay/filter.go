package relay

import (
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// Filter is one stage of the order pipeline every submission passes
// through, in the style of a Quilkin filter chain. A filter inspects the
// batch and may drop orders or the whole batch; it must not keep the batch
// after Apply returns. The built-in stages are Validation, Normalization,
// RateControl, ReplayHook, AntiCheat and Forwarding; Config.Filters sets
// their order and may add others.
type Filter interface {
	Name() string
	Apply(b *Batch)
}

// DefaultFilters is the seed design's chain: validation → timestamp
// normalisation → rate control → replay recording hook (none) → anti-cheat
// → forward.
func DefaultFilters() []Filter {
	return []Filter{Validation(), Normalization(), RateControl(), AntiCheat(), Forwarding()}
}

// DropReason says why an order was not forwarded; zero means it was not
// dropped.
type DropReason uint8

// Drop reasons.
const (
	Kept          DropReason = iota
	DropInvalid              // malformed, wrong player or beyond protocol limits
	DropInactive             // the player is leaving or removed
	DropLate                 // its tick window had already been broadcast
	DropBudget               // the order budget was exhausted
	DropBandwidth            // the bandwidth throttle was exhausted
	DropCeiling              // the hard per-tick ceiling was reached
	numDropReasons
)

var dropNames = [numDropReasons]string{"kept", "invalid", "inactive", "late", "budget", "bandwidth", "ceiling"}

func (r DropReason) String() string {
	if r < numDropReasons {
		return dropNames[r]
	}
	return "drop?"
}

// Batch is one submission on its way through the filter chain.
type Batch struct {
	// Now is the submission's arrival on the relay clock.
	Now time.Duration
	// Player is the sender.
	Player protocol.PlayerID
	// Submit is the decoded submission.
	Submit *msg.OrderSubmit
	// Tick is the window the batch's orders go to: the claimed tick, which
	// Normalization may move to the earliest window the player could have
	// issued in.
	Tick uint64
	// Orders are the submission's orders. Normalization rewrites their
	// SubTickTime to relay-canonical values.
	Orders []BatchOrder
	// Late reports that the submission's tick had already been broadcast.
	Late bool
	// Deviation is how much later the submission arrived than the
	// player's clock and path model predicts from its send stamp
	// (negative: earlier); Envelope is the deviation the model allows
	// either way. Beyond it the submission is not evidence of the path.
	Deviation, Envelope time.Duration
	// Suspicious counts timestamp claims outside the skew budget.
	Suspicious int

	core *Core
	p    *player
}

// BatchOrder is one order of a batch.
type BatchOrder struct {
	protocol.TimestampedOrder
	// Drop is why the order was dropped, or Kept.
	Drop DropReason
}

// DropAll drops every order still kept.
func (b *Batch) DropAll(r DropReason) {
	for i := range b.Orders {
		b.Drop(i, r)
	}
}

// Drop drops order i unless it was dropped already.
func (b *Batch) Drop(i int, r DropReason) {
	if b.Orders[i].Drop == Kept {
		b.Orders[i].Drop = r
	}
}

// Kept counts the orders not dropped.
func (b *Batch) Kept() int {
	n := 0
	for i := range b.Orders {
		if b.Orders[i].Drop == Kept {
			n++
		}
	}
	return n
}

// open reports whether the batch still has orders and its Tick names a
// window not yet broadcast; it drops the orders if the window is gone.
func (b *Batch) open() bool {
	if b.Kept() == 0 {
		return false
	}
	if b.Tick < b.core.timeline.next || b.Tick > uint64(max(b.core.lastOpenTick(), 0)) {
		b.DropAll(DropLate)
		return false
	}
	return true
}
