package lockstepbot

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
)

// hub is an in-memory lockstep "relay" for tests: tick k closes once every
// player has asked for it, with the orders submitted before, sorted by
// player so the tick does not depend on goroutine scheduling.
type hub struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a tick closes
	players int
	seed    uint64
	ticks   []protocol.TickOrders
	pending []protocol.TimestampedOrder
	ready   map[protocol.PlayerID]bool
	hashes  map[uint64]uint64
	desyncs int
	joined  int
}

func newHub(players int, seed uint64) *hub {
	return &hub{players: players, seed: seed, ready: map[protocol.PlayerID]bool{}, hashes: map[uint64]uint64{},
		changed: make(chan struct{})}
}

func (h *hub) join(ctx context.Context, i int) (Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.joined++
	return &hubClient{h: h, id: protocol.PlayerID(h.joined)}, nil
}

type hubClient struct {
	h    *hub
	id   protocol.PlayerID
	next uint64
	diag lockstep.Diagnostics
}

func (c *hubClient) SubmitOrder(o protocol.TimestampedOrder) {
	c.h.mu.Lock()
	defer c.h.mu.Unlock()
	o.Player = c.id
	c.h.pending = append(c.h.pending, o)
	c.diag.OrdersSent++
}

func (c *hubClient) PollTick() (protocol.TickOrders, bool) {
	h := c.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.next == uint64(len(h.ticks)) {
		h.ready[c.id] = true
		if len(h.ready) < h.players {
			return protocol.TickOrders{}, false
		}
		orders := slices.Clone(h.pending)
		slices.SortStableFunc(orders, func(a, b protocol.TimestampedOrder) int { return int(a.Player) - int(b.Player) })
		h.ticks = append(h.ticks, protocol.TickOrders{Tick: uint64(len(h.ticks)), Orders: orders})
		h.pending, h.ready = nil, map[protocol.PlayerID]bool{}
		close(h.changed)
		h.changed = make(chan struct{})
	}
	t := h.ticks[c.next]
	c.diag.Tick = c.next
	c.diag.RTT = time.Duration(c.id) * time.Millisecond
	c.diag.BytesSent += 100
	c.diag.BytesReceived += 300
	c.next++
	return t, true
}

func (c *hubClient) ReportSyncHash(tick, hash uint64) {
	h := c.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if prev, ok := h.hashes[tick]; ok && prev != hash {
		h.desyncs++
	}
	h.hashes[tick] = hash
	c.diag.Desyncs = h.desyncs
}

func (c *hubClient) Status() lockstep.Status           { return lockstep.StatusPlaying }
func (c *hubClient) Diagnostics() lockstep.Diagnostics { return c.diag }
func (c *hubClient) PlayerID() protocol.PlayerID       { return c.id }
func (c *hubClient) Close() error                      { return nil }
func (c *hubClient) NetworkModel() string              { return "lockstep" }

func (c *hubClient) AwaitSeed(context.Context) (uint64, error) { return c.h.seed, nil }

// Leave: the hub certifies nothing.
func (c *hubClient) Leave(context.Context) ([]byte, error) { return nil, nil }

func (c *hubClient) Wait(ctx context.Context) error {
	c.h.mu.Lock()
	ready, changed := c.next < uint64(len(c.h.ticks)), c.h.changed
	c.h.mu.Unlock()
	if ready {
		return nil
	}
	select {
	case <-changed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestRunInSync: bots playing the reference game through a shared hub
// agree on every hash, and the report says so.
func TestRunInSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(3, 42)
		var last Progress
		r, err := Run(t.Context(), Config{Players: 3, Ticks: 120, Join: h.join,
			OnProgress: func(p Progress) { last = p }})
		if err != nil {
			t.Fatal(err)
		}
		if !r.AllInSync || len(r.Players) != 3 {
			t.Fatalf("not in sync: %+v", r)
		}
		if r.NetworkModel != "lockstep" {
			t.Errorf("network model %q, want the clients' lockstep", r.NetworkModel)
		}
		ids := map[int]bool{}
		orders := 0
		for _, p := range r.Players {
			ids[p.ID] = true
			orders += p.OrdersSent
			if p.Ticks != 120 || p.FinalHash == "0000000000000000" || p.Error != "" {
				t.Fatalf("player %+v", p)
			}
			if want := float64(p.ID); p.RTTP50MS < want || p.RTTP50MS > 1.02*want || p.RTTP99MS != p.RTTP50MS {
				t.Errorf("player %d RTT percentiles %v %v", p.ID, p.RTTP50MS, p.RTTP99MS)
			}
		}
		if len(ids) != 3 || orders == 0 {
			t.Fatalf("ids %v, %d orders", ids, orders)
		}
		if h.desyncs != 0 {
			t.Fatalf("%d desyncs", h.desyncs)
		}
		if last.Tick != 119 || last.Playing != 3 || last.RTT != 3*time.Millisecond {
			t.Fatalf("last progress %+v", last)
		}
	})
}

// TestRunLight: light clients stay in sync with their constant hash and
// submit one order per tick.
func TestRunLight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(4, 1)
		var mu sync.Mutex
		ticks := map[int]uint64{}
		r, err := Run(t.Context(), Config{Players: 4, Ticks: 50, Light: true, Join: h.join, MaxJoining: 1,
			OnTick: func(i int, tick uint64, _ time.Time) {
				mu.Lock()
				defer mu.Unlock()
				if tick != ticks[i] {
					t.Errorf("bot %d: tick %d after %d", i, tick, ticks[i])
				}
				ticks[i]++
			}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ticks) != 4 || ticks[0] != 50 || ticks[3] != 50 {
			t.Fatalf("OnTick counts %v", ticks)
		}
		if !r.AllInSync {
			t.Fatalf("not in sync: %+v", r)
		}
		for _, p := range r.Players {
			if p.OrdersSent != 50 {
				t.Fatalf("player %d sent %d orders", p.ID, p.OrdersSent)
			}
		}
	})
}

// TestRunStalls: a room that never fills reports the stall instead of
// hanging.
func TestRunStalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(3, 1) // three expected, two join
		r, err := Run(t.Context(), Config{Players: 2, RoomSize: 3, Ticks: 10, Join: h.join, StallAfter: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if r.AllInSync || r.Players[0].Error != ErrStalled.Error() || r.Players[0].Ticks != 0 {
			t.Fatalf("stalled run reported %+v", r)
		}
	})
}

func TestInSync(t *testing.T) {
	ok := []PlayerReport{{Ticks: 5, FinalHash: "a"}, {Ticks: 5, FinalHash: "a"}}
	if !inSync(ok, 5) {
		t.Fatal("equal reports not in sync")
	}
	for name, bad := range map[string][]PlayerReport{
		"hash":   {{Ticks: 5, FinalHash: "a"}, {Ticks: 5, FinalHash: "b"}},
		"ticks":  {{Ticks: 5, FinalHash: "a"}, {Ticks: 4, FinalHash: "a"}},
		"desync": {{Ticks: 5, FinalHash: "a"}, {Ticks: 5, FinalHash: "a", Desyncs: 1}},
		"error":  {{Ticks: 5, FinalHash: "a", Error: "x"}},
		"empty":  nil,
	} {
		if inSync(bad, 5) {
			t.Errorf("%s: reported in sync", name)
		}
	}
}
