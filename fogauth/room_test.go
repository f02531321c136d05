package fogauth

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// TestConsistencyUnderLoss plays a 4-player match with bots reading only
// their partial worlds, 10% loss on every message and jitter, in virtual
// time. After the last tick the room stops simulating and keeps sending
// until every client acknowledged its view; then every client's world must
// equal the server's truth for what its player sees, field by field.
func TestConsistencyUnderLoss(t *testing.T) {
	for _, seed := range []uint64{7, 8, 9} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { consistencyUnderLoss(t, seed) })
	}
}

func consistencyUnderLoss(t *testing.T, seed uint64) {
	h := scenarioHarness(t, Config{}, 4, 30, seed)
	h.loss, h.latency, h.jitter = 100, 40*time.Millisecond, 10*time.Millisecond
	for p := 1; p <= 4; p++ {
		h.join(ClientID(p), protocol.PlayerID(p), true)
	}
	h.join(100, 0, false) // a spectator
	h.runTicks(600)
	n := h.finish(600)
	t.Logf("converged %d ticks after the last", n)
	for _, c := range h.clients {
		if err := h.inconsistency(c); err != nil {
			t.Error(err)
		}
		// The client's own check, from the MatchEnd's view hash, agrees.
		view := h.room.View(c.id, nil)
		end := AppendMatchEnd(nil, MatchEnd{Tick: h.room.Tick(), Entities: uint32(len(view)), ViewHash: ViewHash(view)})
		if err := c.cl.Receive(end); err != nil {
			t.Fatal(err)
		}
		if _, consistent, ok := c.cl.End(); !ok || !consistent {
			t.Errorf("client %d: MatchEnd check says inconsistent", c.id)
		}
		st, _ := h.room.ClientStats(c.id)
		cs := c.cl.Counters()
		t.Logf("client %d: %d entities, %d updates received, %d enters %d updates %d leaves %d snaps, max stale %d ticks, %d rejections",
			c.id, cs.EntitiesTracked, cs.UpdatesReceived, st.Enters, st.Updates, st.Leaves, cs.World.Snaps, c.maxStale, cs.Rejections)
	}
	if h.room.Stats().Rejections == 0 {
		t.Error("bots issue the odd invalid order; none was rejected")
	}
}

// checkVisibility fails if a StateUpdate names, in an Enter or an Update,
// an entity outside its recipient's visible set at that tick. (A Leave
// names an entity that left the set, by definition.)
func checkVisibility(t *testing.T, h *harness) func(c *hclient, data []byte) {
	return func(c *hclient, data []byte) {
		u, err := ParseStateUpdate(data, nil)
		if err != nil {
			t.Fatalf("room sent an undecodable StateUpdate: %v", err)
		}
		if u.Player != c.player || u.Tick != h.room.Tick() {
			t.Fatalf("StateUpdate for player %d tick %d sent to client %d (player %d) at tick %d", u.Player, u.Tick, c.id, c.player, h.room.Tick())
		}
		if len(data) > h.room.Config().MaxMessageSize {
			t.Fatalf("StateUpdate of %d bytes", len(data))
		}
		vis := h.room.Visible(c.id)
		sees := func(alias protocol.EntityID) bool {
			_, ok := slices.BinarySearch(vis, h.room.SimID(c.id, alias))
			return ok
		}
		for _, d := range u.Deltas {
			if d.Kind == DeltaLeave {
				continue
			}
			if !sees(d.Entity.ID) {
				t.Fatalf("tick %d: client %d was sent entity %d it cannot see", u.Tick, c.id, d.Entity.ID)
			}
			// Every field naming an entity names one the client sees.
			if d.Kind == DeltaUpdate && d.Mask&FieldTarget != 0 && d.Entity.Target != 0 && !sees(d.Entity.Target) {
				t.Fatalf("tick %d: client %d was sent entity %d targeting %d, which it cannot see", u.Tick, c.id, d.Entity.ID, d.Entity.Target)
			}
		}
	}
}

// TestNoUpdateOutsideVision is the property test: over random matches
// (players, armies, seeds, budgets), no StateUpdate names an entity
// outside its recipient's VisibleEntities at that tick, spectators only
// the union of the players' sets, and for every player the visible set
// equals a brute-force computation.
func TestNoUpdateOutsideVision(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		players := int(2 + seed%3)
		cfg := Config{BandwidthPerClientKbps: int(8 + 28*(seed%3))}
		h := scenarioHarness(t, cfg, players, int(10+10*seed), seed)
		h.loss = 50
		h.check = checkVisibility(t, h)
		for p := 1; p <= players; p++ {
			h.join(ClientID(p), protocol.PlayerID(p), true)
		}
		h.join(50, 0, false)
		for range 200 {
			h.runTicks(1)
			bruteForceVisibility(t, h)
		}
	}
}

// bruteForceVisibility recomputes every player's visible set from the
// definition (own entities, and entities in a cell within a sight disc)
// and the spectators' union, and compares them with the room's.
func bruteForceVisibility(t *testing.T, h *harness) {
	s := h.room.Sim()
	union := map[protocol.EntityID]bool{}
	for p := 1; p <= s.Players(); p++ {
		player := protocol.PlayerID(p)
		var want []protocol.EntityID
		src := s.SightSources(player)
		for _, e := range s.Entities() {
			if e.Owner == player || seenBy(src, e.Pos) {
				want = append(want, e.ID)
				union[e.ID] = true
			}
		}
		if got := h.room.Fog().VisibleEntities(player); !slices.Equal(got, want) {
			t.Fatalf("tick %d player %d: visible %v, brute force %v", h.room.Tick(), p, got, want)
		}
	}
	for _, c := range h.clients {
		if c.player != 0 {
			continue
		}
		got := h.room.Visible(c.id)
		if len(got) != len(union) {
			t.Fatalf("spectator sees %d entities, union is %d", len(got), len(union))
		}
		for _, id := range got {
			if !union[id] {
				t.Fatalf("spectator sees %d, which no player sees", id)
			}
		}
	}
}

func seenBy(src []sim.SightSource, p protocol.WorldPos) bool {
	x, y := sim.CellOf(p)
	for _, s := range src {
		sx, sy := sim.CellOf(s.Pos)
		r := int(s.Range / protocol.CellSize)
		if (x-sx)*(x-sx)+(y-sy)*(y-sy) <= r*r {
			return true
		}
	}
	return false
}

// TestSightSkipIsInvisible runs the same match with the sight-source hash
// skip and without it: every StateUpdate must be byte-identical, and the
// skip must actually skip.
func TestSightSkipIsInvisible(t *testing.T) {
	record := func(always bool) ([][]byte, Stats) {
		h := scenarioHarness(t, Config{AlwaysRecomputeFog: always}, 3, 20, 11)
		var sent [][]byte
		h.check = func(_ *hclient, data []byte) { sent = append(sent, data) }
		for p := 1; p <= 3; p++ {
			h.join(ClientID(p), protocol.PlayerID(p), p != 3) // player 3 idles: its sources rarely move
		}
		h.join(9, 0, false)
		h.runTicks(300)
		return sent, h.room.Stats()
	}
	with, st := record(false)
	without, st2 := record(true)
	if len(with) != len(without) {
		t.Fatalf("%d StateUpdates with the skip, %d without", len(with), len(without))
	}
	for i := range with {
		if !bytes.Equal(with[i], without[i]) {
			t.Fatalf("StateUpdate %d differs", i)
		}
	}
	if st.FogSkips == 0 || st2.FogSkips != 0 {
		t.Fatalf("fog skips: %d with the skip, %d without", st.FogSkips, st2.FogSkips)
	}
	t.Logf("%d of %d fog updates skipped", st.FogSkips, st.FogSkips+st.FogRecomputes)
}
