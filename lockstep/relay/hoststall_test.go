package relay

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// stallRun is a 4-player match over simulated paths in which the relay
// process stalls once during play.
type stallRun struct {
	n       *simNet
	stalls  []HostStall
	strikes []Strike
	removed []RemovalScheduled
	moved   bool // the order issued during the stall reached a frame
}

func runHostStall(t *testing.T, cfg Config, up, jitter, stall time.Duration) *stallRun {
	t.Helper()
	ids := []protocol.PlayerID{1, 2, 3, 4}
	n, err := newSimNet(cfg, ids, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range n.clients {
		c.up, c.down, c.jitter = up, up, jitter
	}
	r := &stallRun{n: n}
	n.onEvent = func(e Event) {
		switch e := e.(type) {
		case HostStall:
			r.stalls = append(r.stalls, e)
		case Strike:
			r.strikes = append(r.strikes, e)
		case RemovalScheduled:
			r.removed = append(r.removed, e)
		}
	}
	n.onFrame = func(f *msg.TickFrame) {
		for _, o := range f.Orders {
			if _, ok := o.Order.(protocol.Move); ok {
				r.moved = true
			}
		}
	}
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	n.runUntil(n.now+time.Minute, func() bool { return n.core.NextTick() > 60 })
	n.issue(n.clients[0], n.now+stall/2, protocol.Move{Units: []protocol.EntityID{1}})
	n.stallUntil = n.now + stall
	n.runUntil(n.stallUntil, func() bool { return false })
	n.runUntil(n.now+30*time.Second, func() bool { return false })
	return r
}

// TestHostStallBlamesNoOne stalls the relay process during play for
// lengths from below the detection threshold to beyond the heartbeat
// timeout: no player is struck or removed, and the schedule catches up.
func TestHostStallBlamesNoOne(t *testing.T) {
	for _, tc := range []struct {
		name       string
		up, jitter time.Duration
		stall      time.Duration
		detected   bool
		moved      bool // the order issued during the stall is delivered
	}{
		// Below the threshold, on a LAN path whose loss allowance (about
		// 20 ms) the stall exceeds: every player is late for the same
		// ticks, which is no one's lag switch.
		{"lan-60ms", time.Millisecond, 200 * time.Microsecond, 60 * time.Millisecond, false, true},
		{"lan-150ms", time.Millisecond, 200 * time.Microsecond, 150 * time.Millisecond, true, true},
		{"wan-2s", 30 * time.Millisecond, 4 * time.Millisecond, 2 * time.Second, true, true},
		{"past-frozen-4s", 30 * time.Millisecond, 4 * time.Millisecond, 4 * time.Second, true, true},
		// Beyond the heartbeat timeout the lag is capped: the first 2 s of
		// ticks go out Idle at once, still blaming no one; the order,
		// issued 3.5 s into the stall, makes its tick.
		{"past-heartbeat-7s", 30 * time.Millisecond, 4 * time.Millisecond, 7 * time.Second, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runHostStall(t, Config{}, tc.up, tc.jitter, tc.stall)
			if len(r.strikes) > 0 || len(r.removed) > 0 {
				t.Fatalf("strikes %v, removals %v", r.strikes, r.removed)
			}
			if got := len(r.stalls) > 0; got != tc.detected {
				t.Errorf("stall detected: %v (%v), want %v", got, r.stalls, tc.detected)
			}
			if r.moved != tc.moved {
				t.Errorf("order issued during the stall delivered: %v, want %v", r.moved, tc.moved)
			}
			c := r.n.core
			if c.host.lag != 0 || c.due(c.NextTick()) != c.scheduled(c.NextTick()) {
				t.Errorf("still %v behind the schedule", c.host.lag)
			}
			for _, p := range c.players {
				if p.state.Status != StatusActive || p.state.Strikes != 0 || p.excluded != 0 {
					t.Errorf("player %d: %v, %d strikes, excluded %d", p.state.ID, p.state.Status, p.state.Strikes, p.excluded)
				}
			}
		})
	}
}

// TestHostStallKeepsLagSwitchDetection runs a lag switch through a relay
// stall: the cheater is still struck out, the honest players are not.
func TestHostStallKeepsLagSwitchDetection(t *testing.T) {
	ids := []protocol.PlayerID{1, 2, 3}
	n, err := newSimNet(Config{}, ids, 3)
	if err != nil {
		t.Fatal(err)
	}
	struck := map[protocol.PlayerID]int{}
	n.onEvent = func(e Event) {
		if s, ok := e.(Strike); ok {
			struck[s.Player]++
		}
	}
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	n.runUntil(n.now+time.Minute, func() bool { return n.core.NextTick() > 30 })
	n.clients[2].hold = 400 * time.Millisecond
	n.runUntil(n.now+500*time.Millisecond, func() bool { return false })
	n.stallUntil = n.now + time.Second
	n.runUntil(n.stallUntil, func() bool { return false })
	n.runUntil(n.now+10*time.Second, func() bool { return false })
	if st, _ := n.core.Player(3); st.Status == StatusActive {
		t.Errorf("lag switch still active with %d strikes", st.Strikes)
	}
	if struck[1]+struck[2] > 0 {
		t.Errorf("honest players struck: %v", struck)
	}
}

// TestSharedFreezeWaits: when every player stops echoing at once, the
// frames are what is not getting through: the frozen removals wait a
// heartbeat timeout more, then happen. One frozen player among healthy
// ones is removed at once (transcript frozen_client).
func TestSharedFreezeWaits(t *testing.T) {
	cfg := Config{FrozenTimeout: 500 * time.Millisecond}
	n, err := newSimNet(cfg, []protocol.PlayerID{1, 2, 3}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Duration
	n.onEvent = func(e Event) {
		if r, ok := e.(RemovalScheduled); ok && r.Reason == msg.ReasonFrozen {
			at = append(at, n.now)
		}
	}
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	n.runUntil(n.now+time.Minute, func() bool { return n.core.NextTick() > 10 })
	froze := n.now
	for _, c := range n.clients {
		c.noEcho = true
	}
	n.runUntil(n.now+20*time.Second, func() bool { return false })
	if len(at) != 3 {
		t.Fatalf("%d frozen removals, want 3", len(at))
	}
	for _, a := range at {
		if d := a - froze; d < DefaultHeartbeatTimeout || d > DefaultHeartbeatTimeout+time.Second {
			t.Errorf("removed %v after freezing, want a heartbeat timeout past the frozen timeout", d)
		}
	}
}
