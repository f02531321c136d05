package lockstep

import (
	"fmt"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// Simulation is what GameLoop drives: a deterministic simulation that applies
// one confirmed tick at a time and summarises its state in a hash.
type Simulation interface {
	ApplyTick(protocol.TickOrders) error
	StateHash() uint64
}

// OrderSource produces the local player's orders for a tick: a human's
// input queue, or a bot.
type OrderSource interface {
	Orders(tick uint64) []protocol.TimestampedOrder
}

// GameLoop ties a simulation to a network model: drain input, submit orders,
// poll the confirmed tick, apply it, report the hash. Visual prediction stays
// out of the simulation; a renderer reads the simulation between steps.
type GameLoop struct {
	Sim     Simulation
	Net     NetworkModel
	Input   OrderSource // may be nil: a spectator or a remote-only player
	applied uint64      // ticks applied so far
	next    uint64      // the tick expected next
	inputAt uint64      // ticks input was drained for
	// OnTick, if set, is called after each applied tick with its hash.
	OnTick func(tick, hash uint64)
	// Catchup paces a rejoining client's catch-up (StatusCatchingUp):
	// several ticks per Step, within the frame's simulation budget as
	// measured by Clock (nil: only MaxTicksPerFrame bounds a Step).
	Catchup CatchupConfig
	Clock   func() time.Duration
	// Loaded is set once a snapshot was loaded (a rejoin or an observer's
	// start); Rejected counts snapshots that did not match the agreed
	// hash.
	Loaded   bool
	Rejected int
}

// Step runs one iteration: it submits input for the next tick if it has not
// yet, then applies every confirmed tick that has arrived. It returns how
// many ticks were applied; 0 means the network has nothing confirmed yet.
func (g *GameLoop) Step() (int, error) {
	x, exchange := g.Net.(SnapshotExchange)
	catching := false
	if exchange {
		g.snapshotStep(x)
		catching = g.Net.Status() == StatusCatchingUp
	}
	var t0 time.Duration
	if catching && g.Clock != nil {
		t0 = g.Clock()
	}
	if g.Input != nil && g.inputAt <= g.applied && !catching {
		g.inputAt = g.applied + 1
		for _, o := range g.Input.Orders(g.next) {
			g.Net.SubmitOrder(o)
		}
	}
	n := 0
	for {
		if catching && n > 0 && !g.Catchup.more(n, g.elapsed(t0)) {
			return n, nil
		}
		t, ok := g.Net.PollTick()
		if !ok {
			return n, nil
		}
		if g.applied > 0 && t.Tick != g.next {
			return n, fmt.Errorf("lockstep: tick %d confirmed, expected %d", t.Tick, g.next)
		}
		if err := g.Sim.ApplyTick(t); err != nil {
			return n, fmt.Errorf("lockstep: applying tick %d: %w", t.Tick, err)
		}
		g.applied++
		g.next = t.Tick + 1
		h := g.Sim.StateHash()
		g.capture(t.Tick)
		g.Net.ReportSyncHash(t.Tick, h)
		if exchange {
			g.donate(x, t.Tick)
		}
		if g.OnTick != nil {
			g.OnTick(t.Tick, h)
		}
		n++
		if g.Input != nil && !catching {
			return n, nil // one tick per step keeps input and ticks in step
		}
	}
}

// elapsed is the time since t0 by Clock, or 0 without one.
func (g *GameLoop) elapsed(t0 time.Duration) time.Duration {
	if g.Clock == nil {
		return 0
	}
	return g.Clock() - t0
}

// capture keeps the state of a tick the relay asked a hash for, when the
// network model answers the desync walk and the simulation can.
func (g *GameLoop) capture(tick uint64) {
	k, ok := g.Net.(desyncCapturer)
	if !ok || !k.WantsCapture(tick) {
		return
	}
	if s, ok := g.Sim.(Inspectable); ok {
		if c := s.CaptureDesync(); c != nil {
			k.KeepCapture(tick, c)
		}
	}
}

// Applied is the number of ticks applied to the simulation.
func (g *GameLoop) Applied() uint64 { return g.applied }
