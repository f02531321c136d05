package relay

import (
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// Validation drops orders that do not belong in the match: from a player
// that is leaving, naming another player, or breaking the protocol limits
// (the decoder enforces these too; in-process submissions skip it).
func Validation() Filter { return validation{} }

type validation struct{}

func (validation) Name() string { return "validate" }

func (validation) Apply(b *Batch) {
	if b.p.state.Status != StatusActive {
		b.DropAll(DropInactive)
		return
	}
	lim := b.core.cfg.Limits
	for i := range b.Orders {
		o := &b.Orders[i]
		if o.Player != b.Player || !validOrder(o.Order, lim) {
			b.Drop(i, DropInvalid)
		}
	}
}

func validOrder(o protocol.PlayerOrder, lim protocol.ProtocolLimits) bool {
	switch v := o.(type) {
	case protocol.Idle, protocol.Build, protocol.SetRallyPoint, protocol.Sell:
		return true
	case protocol.Move:
		return len(v.Units) <= lim.MaxUnitsPerOrder
	case protocol.Attack:
		return len(v.Units) <= lim.MaxUnitsPerOrder && v.Target.Kind <= protocol.TargetGround
	case protocol.Custom:
		return len(v.Payload) <= lim.MaxCustomPayload
	}
	return false
}

// RateControl applies the three rate-control layers: the bandwidth
// throttle (bytes per tick with a burst), the order budget (refill per
// tick, burst cap; excess dropped) and the hard ceiling of orders per
// player per tick.
func RateControl() Filter { return rateControl{} }

type rateControl struct{}

func (rateControl) Name() string { return "rate" }

func (rateControl) Apply(b *Batch) {
	p := b.p
	if !b.open() {
		return
	}
	if !p.state.Bandwidth.TryConsume(b.Submit.Size) {
		b.DropAll(DropBandwidth)
		return
	}
	room := b.core.cfg.Limits.MaxOrdersPerPlayerPerTick - int(b.core.timeline.window(b.Tick).count[p.index])
	want := min(b.Kept(), max(room, 0))
	accepted := p.state.Budget.TryConsume(want)
	n := 0
	for i := range b.Orders {
		if b.Orders[i].Drop != Kept {
			continue
		}
		switch {
		case n < accepted:
		case n < want:
			b.Drop(i, DropBudget)
		default:
			b.Drop(i, DropCeiling)
		}
		n++
	}
}

// ReplayHook calls record with every batch that reaches it: in the default
// position, after rate control, it sees what will be forwarded.
func ReplayHook(record func(*Batch)) Filter { return replayHook{record} }

type replayHook struct{ record func(*Batch) }

func (replayHook) Name() string     { return "record" }
func (h replayHook) Apply(b *Batch) { h.record(b) }

// AntiCheat scores suspicious timestamp claims and, when the strike policy
// asks for it, turns them into strikes.
func AntiCheat() Filter { return antiCheat{} }

type antiCheat struct{}

func (antiCheat) Name() string { return "anticheat" }

func (antiCheat) Apply(b *Batch) {
	if b.Suspicious == 0 {
		return
	}
	b.p.state.Suspicious += b.Suspicious
	b.core.emit(Suspicious{Player: b.Player, Tick: b.Submit.Tick, Claims: b.Suspicious, Total: b.p.state.Suspicious})
	if b.core.cfg.Strikes.Suspicious {
		b.core.strike(b.p, "suspicious")
	}
}

// Forwarding hands the kept orders to their tick windows, to be broadcast
// when each window's deadline passes. Without it nothing is forwarded.
func Forwarding() Filter { return forwarding{} }

type forwarding struct{}

func (forwarding) Name() string { return "forward" }

func (forwarding) Apply(b *Batch) {
	if !b.open() {
		return
	}
	w := b.core.timeline.window(b.Tick)
	ceiling := b.core.cfg.Limits.MaxOrdersPerPlayerPerTick
	for i := range b.Orders {
		o := &b.Orders[i]
		if o.Drop != Kept {
			continue
		}
		// The ceiling is also the memory bound of a window, whatever the
		// chain before.
		if int(w.count[b.p.index]) >= ceiling {
			b.Drop(i, DropCeiling)
			continue
		}
		w.count[b.p.index]++
		w.orders = append(w.orders, o.TimestampedOrder)
	}
}

// OrderBudget is the time-budget pool of the first rate-control layer:
// every order costs a token, tokens refill each tick up to a burst cap.
type OrderBudget struct {
	Tokens, RefillPerTick, BurstCap int
}

// Tick adds a tick's refill.
func (b *OrderBudget) Tick() { b.Tokens = min(b.Tokens+b.RefillPerTick, b.BurstCap) }

// TryConsume takes up to n tokens and returns how many it took.
func (b *OrderBudget) TryConsume(n int) int {
	n = min(n, b.Tokens)
	b.Tokens -= n
	return n
}

// ByteBucket is the bandwidth throttle of the second layer: a token bucket
// in bytes.
type ByteBucket struct {
	Tokens, PerTick, Burst int
}

// Tick adds a tick's bytes.
func (b *ByteBucket) Tick() { b.Tokens = min(b.Tokens+b.PerTick, b.Burst) }

// TryConsume takes n bytes if the bucket holds them.
func (b *ByteBucket) TryConsume(n int) bool {
	if n > b.Tokens {
		return false
	}
	b.Tokens -= n
	return true
}

// usToDur converts microseconds from the wire, saturating far beyond any
// real clock.
func usToDur(us uint64) time.Duration {
	const maxUs = 1 << 52
	return time.Duration(min(us, maxUs)) * time.Microsecond
}
