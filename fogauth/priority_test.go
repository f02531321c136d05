package fogauth

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// TestStarvationBound saturates every client's budget (8 KiB/s: about a
// dozen deltas per tick against hundreds pending, a full-map spectator
// included) for 900 ticks and bounds the longest wait of each tier. The
// seed claims the lowest tier is updated within 300 ticks. Waits are
// measured on the deltas sent and, every tick, on those still pending: a
// delta starved for ever would never be sent, so only the second shows
// it.
func TestStarvationBound(t *testing.T) {
	h := scenarioHarness(t, Config{BandwidthPerClientKbps: 8, FullMapSpectators: true}, 4, 40, 3)
	h.loss = 20
	for p := 1; p <= 4; p++ {
		h.join(ClientID(p), protocol.PlayerID(p), true)
	}
	h.join(99, 0, false)
	var pendingWait uint64
	for range 900 {
		h.runTicks(1)
		pendingWait = max(pendingWait, maxPendingWait(h.room))
	}
	t.Logf("longest wait of a delta still pending: %d ticks", pendingWait)
	if pendingWait > 300 {
		t.Errorf("a delta has been pending for %d ticks (bound 300)", pendingWait)
	}
	st := h.room.Stats()
	if st.Saturated < 900 {
		t.Fatalf("only %d saturated client-ticks: the budget is not the bottleneck", st.Saturated)
	}
	for tier := range NumTiers {
		t.Logf("%-10s max wait %3d ticks, p99 %3d", tier, st.MaxWait[tier], h.room.WaitQuantile(tier, 0.99))
		if st.MaxWait[tier] > 300 {
			t.Errorf("%s waited %d ticks (bound 300)", tier, st.MaxWait[tier])
		}
	}
	// A higher tier never waits longer at the 99th percentile than a lower
	// one does at its worst.
	if h.room.WaitQuantile(TierOwn, 0.99) > st.MaxWait[TierDecoration] {
		t.Errorf("own units wait longer than decoration")
	}
	for _, c := range h.clients {
		cs, _ := h.room.ClientStats(c.id)
		if max := uint64(h.room.Config().BudgetBytes()) * (h.room.Tick()); cs.BytesSent > max {
			t.Errorf("client %d: %d bytes, budget allows %d", c.id, cs.BytesSent, max)
		}
	}
}

// maxPendingWait is the longest any client's delta left unsent at the
// last tick has waited: ticks since its entity was last sent or up to
// date.
func maxPendingWait(r *Room) uint64 {
	var w uint64
	for _, c := range r.clients {
		for _, p := range c.view.pend {
			if e := &c.view.entries[p.entry]; e.lastSent != r.Tick() {
				w = max(w, r.Tick()-e.lastSent)
			}
		}
	}
	return w
}

// TestStalenessBonusSettings: a bonus of 0 is honoured (the configuration
// key's 0 is NoStalenessBonus), the largest allowed one never overflows
// a priority, and both still deliver every delta in a saturated match.
func TestStalenessBonusSettings(t *testing.T) {
	if got := addPriority(1<<32-10, 1<<40); got != 1<<32-1 {
		t.Fatalf("addPriority saturates at %d", got)
	}
	if err := (Config{StalenessBonus: MaxStalenessBonus + 1}).Validate(); err == nil {
		t.Fatal("a bonus over the bound was accepted")
	}
	for _, bonus := range []int{NoStalenessBonus, MaxStalenessBonus} {
		h := scenarioHarness(t, Config{BandwidthPerClientKbps: 8, StalenessBonus: bonus}, 2, 40, 3)
		if want := uint64(max(bonus, 0)); h.room.sel.bonus != want {
			t.Fatalf("bonus %d: the selector adds %d per tick", bonus, h.room.sel.bonus)
		}
		for p := 1; p <= 2; p++ {
			h.join(ClientID(p), protocol.PlayerID(p), true)
		}
		var wait uint64
		for range 600 {
			h.runTicks(1)
			wait = max(wait, maxPendingWait(h.room))
			for _, c := range h.room.clients {
				for _, e := range c.view.entries {
					if e.accum == 1<<32-1 {
						t.Fatalf("bonus %d: a priority reached its ceiling", bonus)
					}
				}
			}
		}
		t.Logf("bonus %d: longest pending wait %d ticks", bonus, wait)
		if wait > 300 {
			t.Errorf("bonus %d: a delta waited %d ticks", bonus, wait)
		}
	}
}

// TestBudgetPerTick: no client ever receives more than the per-tick budget
// in one tick, or more than MaxEntitiesPerUpdate deltas.
func TestBudgetPerTick(t *testing.T) {
	h := scenarioHarness(t, Config{BandwidthPerClientKbps: 16, MaxEntitiesPerUpdate: 40, FullMapSpectators: true}, 3, 40, 5)
	perTick := map[ClientID]int{}
	deltas := map[ClientID]map[protocol.EntityID]bool{}
	tick := uint64(0)
	h.check = func(c *hclient, data []byte) {
		if h.room.Tick() != tick {
			clear(perTick)
			clear(deltas)
			tick = h.room.Tick()
		}
		u, _ := ParseStateUpdate(data, nil)
		perTick[c.id] += len(data)
		if deltas[c.id] == nil {
			deltas[c.id] = map[protocol.EntityID]bool{}
		}
		for _, d := range u.Deltas {
			deltas[c.id][d.Entity.ID] = true // an Enter's trailing Update is the same entity
		}
		if perTick[c.id] > h.room.Config().BudgetBytes() {
			t.Fatalf("tick %d client %d: %d bytes, budget %d", tick, c.id, perTick[c.id], h.room.Config().BudgetBytes())
		}
		if len(deltas[c.id]) > 40 {
			t.Fatalf("tick %d client %d: %d entities", tick, c.id, len(deltas[c.id]))
		}
	}
	for p := 1; p <= 3; p++ {
		h.join(ClientID(p), protocol.PlayerID(p), true)
	}
	h.join(7, 0, false)
	h.runTicks(300)
}

// TestNearGridMatchesBruteForce compares the dilated bitmaps with the
// definition (an own unit's cell within NearCells-1 cells on both axes)
// on random maps, some wider than one 64-bit word and not a multiple of
// it.
func TestNearGridMatchesBruteForce(t *testing.T) {
	rng := sim.SplitMix64{S: 11}
	for _, size := range []int{16, 64, 70, 130} {
		md := sim.MapData{Width: size, Height: size - 3, Cells: make([]sim.Cell, size*(size-3)), Players: 3}
		for range 12 {
			owner := protocol.PlayerID(rng.Intn(3) + 1)
			x, y := int(rng.Intn(uint64(size))), int(rng.Intn(uint64(size-3)))
			typ := sim.TypeInfantry
			if rng.Intn(4) == 0 {
				typ = sim.TypeBarracks // structures do not count
			}
			md.Entities = append(md.Entities, sim.Placement{Type: typ, Owner: owner, Pos: cellPos(x, y)})
		}
		rts, err := rtsgame.New(md, sim.Config{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := rts.Sim()
		var g nearGrid
		g.build(rts, s.Entities(), 1)
		for p := protocol.PlayerID(1); p <= 3; p++ {
			for y := range size - 3 {
				for x := range size {
					want := false
					for _, e := range s.Entities() {
						ex, ey := sim.CellOf(e.Pos)
						if e.Owner == p && sim.CategoryOf(&e) == sim.CategoryUnit && max(x-ex, ex-x) < NearCells && max(y-ey, ey-y) < NearCells {
							want = true
						}
					}
					if got := g.near(p, cellPos(x, y)); got != want {
						t.Fatalf("map %d player %d cell %d,%d: near %v, brute force %v", size, p, x, y, got, want)
					}
				}
			}
		}
	}
}

// TestTakeTopMatchesSort checks the selection against brute force over
// random inputs: the keys sorted in descending order (ties of accumulated
// priority broken by the lower alias, as the keys encode), taken while
// they fit the budget and the count limit.
func TestTakeTopMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 2000 {
		n := rng.IntN(500)
		pend := make([]pending, n)
		s := selector{budget: 1 + rng.IntN(3000), maxCount: 1 + rng.IntN(600), maxMsg: HeaderSize + 20 + rng.IntN(1200)}
		s.slot = make([]int32, n+1)
		for i, a := range rng.Perm(n) {
			pend[i].size = int32(1 + rng.IntN(40))
			pend[i].alias = protocol.EntityID(a + 1)
			s.slot[a+1] = int32(i)
			accum := uint32(rng.IntN(1 + rng.IntN(2000))) // many ties when small
			s.keys = append(s.keys, uint64(accum)<<32|uint64(^uint32(a+1)))
		}
		want := slices.Clone(s.keys)
		slices.SortFunc(want, func(a, b uint64) int { return cmp.Compare(b, a) })
		var wantOrder []int32
		used, room := 0, 0
		for _, k := range want {
			if len(wantOrder) == s.maxCount {
				break
			}
			idx := s.slot[^uint32(k)]
			u, r := s.add(used, room, int(pend[idx].size))
			if u > s.budget {
				break
			}
			used, room = u, r
			wantOrder = append(wantOrder, idx)
		}
		s.takeTop(pend)
		if !slices.Equal(s.order, wantOrder) {
			t.Fatalf("round %d (n=%d): order %v, want %v", round, n, s.order, wantOrder)
		}
	}
}
