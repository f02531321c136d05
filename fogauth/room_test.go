package fogauth

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// TestConsistencyUnderLoss plays a 4-player match with bots reading only
// their partial worlds, 10% loss on every message and jitter, in virtual
// time. After the last tick the room stops simulating and keeps sending
// until every client acknowledged its view; then every client's world must
// equal the server's truth for what its player sees, field by field.
//
// The reordered runs also let StateUpdates arrive out of order (jitter of
// three ticks) and duplicate 5% of StateUpdates and Acks.
func TestConsistencyUnderLoss(t *testing.T) {
	for _, seed := range []uint64{7, 8, 9} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { consistencyUnderLoss(t, seed, false) })
		t.Run(fmt.Sprint(seed, "/reordered"), func(t *testing.T) { consistencyUnderLoss(t, seed, true) })
	}
}

func consistencyUnderLoss(t *testing.T, seed uint64, reorder bool) {
	h := scenarioHarness(t, Config{}, 4, 30, seed)
	h.loss, h.latency, h.jitter = 100, 40*time.Millisecond, 10*time.Millisecond
	if reorder {
		h.reorder, h.dup, h.jitter = true, 50, 100*time.Millisecond
	}
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
	s := rtsOf(h.room)
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
		if got := h.room.Game().Visible(player); !slices.Equal(got, want) {
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

// TestUIClientOrdersNeverLost plays a client as a user interface would:
// orders submitted at random moments, flushes at random moments (often
// several in one tick, stamped with the same stale tick while
// StateUpdates are lost), 30% of StateUpdates and Acks lost. Every order
// must be applied or counted in a Rejection the client read.
func TestUIClientOrdersNeverLost(t *testing.T) {
	h := scenarioHarness(t, Config{}, 2, 20, 4)
	h.loss, h.jitter = 300, 15*time.Millisecond
	c := h.join(1, 1, false)
	h.join(2, 2, true)
	rng := sim.SplitMix64{S: 99}
	submitted := uint64(0)
	flushes := 0
	for h.room.Tick() < 400 {
		h.now += time.Millisecond
		h.deliverDown(c, false)
		if rng.Intn(7) == 0 {
			c.cl.SubmitOrder(protocol.TimestampedOrder{Order: uiOrder(c.cl.World(), &rng)})
			submitted++
		}
		if rng.Intn(5) == 0 {
			h.uiFlush(c)
			flushes++
		}
		h.deliverUp(c, false)
		other := h.clients[1]
		h.deliverDown(other, false)
		h.play(other)
		h.deliverUp(other, false)
		if h.room.Due(h.now) {
			if err := h.room.RunDue(h.now); err != nil {
				t.Fatal(err)
			}
			h.send()
		}
	}
	h.uiFlush(c)
	for range 30 { // everything in flight arrives; the Rejections come back
		h.deliverUp(c, true)
		h.now = h.room.NextDeadline()
		if err := h.room.RunDue(h.now); err != nil {
			t.Fatal(err)
		}
		h.send()
		h.deliverDown(c, true)
	}
	st, _ := h.room.ClientStats(1)
	rejected := c.cl.Counters().Rejections
	t.Logf("%d orders in %d flushes: %d applied, %d rejected", submitted, flushes, st.OrdersApplied, rejected)
	if st.OrdersApplied+rejected != submitted {
		t.Fatalf("%d orders submitted, %d applied and %d rejected: %d lost without a word",
			submitted, st.OrdersApplied, rejected, int64(submitted)-int64(st.OrdersApplied+rejected))
	}
	if st.OrdersApplied == 0 || rejected == 0 {
		t.Fatal("the test needs both applied and rejected orders")
	}
}

// uiFlush sends what the client has, however many times a tick.
func (h *harness) uiFlush(c *hclient) {
	msgs, ack, err := c.cl.Flush()
	if err != nil {
		h.t.Fatal(err)
	}
	if ack != nil && !h.lost() {
		c.up = insert(c.up, netMsg{at: h.now + h.delay(), data: slices.Clone(ack)})
	}
	for _, m := range msgs {
		at := max(h.now+h.delay(), c.relUp)
		c.relUp = at
		c.up = insert(c.up, netMsg{at: at, reliable: true, data: slices.Clone(m)})
	}
}

// uiOrder is what a user clicks: mostly moves of its own units, sometimes
// an order naming something it does not hold.
func uiOrder(w *PartialWorld, rng *sim.SplitMix64) protocol.PlayerOrder {
	var own []protocol.EntityID
	for _, e := range w.Entities() {
		if e.Owner == 1 && sim.CategoryOf(&e) == sim.CategoryUnit {
			own = append(own, e.ID)
		}
	}
	pos := sim.CellCenter(int(rng.Intn(20)), int(rng.Intn(20)))
	if len(own) == 0 || rng.Intn(4) == 0 {
		return protocol.Move{Units: []protocol.EntityID{protocol.EntityID(1 + rng.Intn(500))}, Target: pos}
	}
	return protocol.Move{Units: own[:1+rng.Intn(uint64(len(own)))], Target: pos}
}

// TestRejectionsBounded: whatever a client sends in one tick, it gets at
// most four Rejections back, and their counts add up to every order
// refused. A spectator's packet of 256 orders is one 13-byte Rejection; a
// player's burst of orders of every kind, over the rate and naming ids it
// does not see, is at most four.
func TestRejectionsBounded(t *testing.T) {
	h := scenarioHarness(t, Config{}, 2, 10, 1)
	spec := NewClient(0)
	player := NewClient(1)
	for id, p := range map[ClientID]protocol.PlayerID{1: 1, 9: 0} {
		if err := h.room.AddClient(id, p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 256 {
		spec.SubmitOrder(protocol.TimestampedOrder{Order: protocol.Idle{}, SubTickTime: uint32(i)})
	}
	kinds := []protocol.PlayerOrder{
		protocol.Idle{}, protocol.Move{Units: []protocol.EntityID{77}}, protocol.Sell{Building: 5},
		protocol.SetRallyPoint{Building: 3}, protocol.Build{Structure: protocol.StructureType(sim.TypeBarracks)},
		protocol.Attack{Units: []protocol.EntityID{1}, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: 9}},
	}
	for i := range 200 {
		player.SubmitOrder(protocol.TimestampedOrder{Order: kinds[i%len(kinds)]})
	}
	sent := map[ClientID]int{}
	for id, cl := range map[ClientID]*Client{9: spec, 1: player} {
		msgs, _, err := cl.Flush()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			sent[id] += len(m)
			if err := h.room.Step(id, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := h.room.RunDue(h.room.NextDeadline()); err != nil {
		t.Fatal(err)
	}
	got := map[ClientID][]Rejection{}
	for _, e := range h.room.Ready().Messages {
		if e.Reliable {
			r, err := ParseRejection(e.Data)
			if err != nil {
				t.Fatal(err)
			}
			got[e.To] = append(got[e.To], r)
		}
	}
	h.room.Advance()
	if r := got[9]; len(r) != 1 || r[0].Reason != RejectSpectator {
		t.Fatalf("spectator's %d bytes of orders: %+v", sent[9], r)
	}
	total := uint64(0)
	for _, r := range got[1] {
		total += uint64(r.Count)
	}
	st, _ := h.room.ClientStats(1)
	t.Logf("player: %d bytes of orders, %d Rejections (%d bytes) counting %d orders, %d applied", sent[1], len(got[1]), len(got[1])*RejectionSize, total, st.OrdersApplied)
	if len(got[1]) > maxRejectionGroups+1 || total+st.OrdersApplied != 200 {
		t.Fatalf("player: %+v", got[1])
	}
}

// TestAllDoneWaitsForGonePlayers: one player's Done does not end the match
// while the other is gone but may rejoin; it does once that player comes
// back and says Done, or its seat is given up.
func TestAllDoneWaitsForGonePlayers(t *testing.T) {
	for _, back := range []bool{true, false} {
		h := scenarioHarness(t, Config{}, 2, 5, 1)
		h.join(1, 1, false)
		h.join(2, 2, false)
		h.room.RemoveClient(2) // gone: in its rejoin window
		if err := h.room.Step(1, []byte{TypeDone}); err != nil {
			t.Fatal(err)
		}
		if h.room.AllDone() {
			t.Fatal("one player's Done ended the match while the other may rejoin")
		}
		if back {
			h.join(3, 2, false)
			if err := h.room.Step(3, []byte{TypeDone}); err != nil {
				t.Fatal(err)
			}
		} else {
			h.room.GiveUp(2)
		}
		if !h.room.AllDone() {
			t.Fatalf("rejoined %v: every player done, AllDone false", back)
		}
	}
}

// TestProberInfersNothing: a cheating client probing hidden ids, build
// cells it cannot see and attacks on targets it does not hold, over a
// lossy network for a whole match, infers no hidden entity. (Validating
// against the whole truth instead, it infers some: blocked Builds.)
func TestProberInfersNothing(t *testing.T) {
	h := scenarioHarness(t, Config{}, 3, 20, 5)
	h.loss = 50
	c := h.join(1, 1, false)
	for p := 2; p <= 3; p++ {
		h.join(ClientID(p), protocol.PlayerID(p), true)
	}
	pr := rtsgame.NewProber(1, rtsOf(h.room).Terrain(), 5)
	var rej []Rejection
	var orders []protocol.TimestampedOrder
	h.onPlay = func(hc *hclient) {
		if hc != c {
			return
		}
		rej = c.cl.TakeRejections(rej[:0])
		for _, r := range rej {
			observeProbe(pr, r)
		}
		if w := c.cl.World(); w.Tick() > c.botTick && !h.room.Finished() {
			c.botTick = w.Tick()
			orders = pr.Orders(w, w.Tick(), orders[:0])
			for _, o := range orders {
				c.cl.SubmitOrder(o)
			}
		}
	}
	h.runTicks(400)
	h.finish(600)
	for range 3 { // the last Rejections arrive
		h.runTicks(1)
		h.onPlay(c)
	}
	n := pr.Inferred(c.cl.World().Entities())
	t.Logf("%d probes, %d orders refused, %d inferred", pr.Probes(), c.cl.Counters().Rejections, n)
	if pr.Probes() < 300 || n != 0 {
		t.Fatalf("%d probes; %d hidden entities inferred", pr.Probes(), n)
	}
}

// TestFinishAnswersQueuedOrders: orders waiting for a tick when the match
// finishes, and orders that come after, are refused at once (the embedder
// may send the MatchEnd before another tick runs).
func TestFinishAnswersQueuedOrders(t *testing.T) {
	h := scenarioHarness(t, Config{}, 2, 5, 1)
	cl := NewClient(1)
	if err := h.room.AddClient(1, 1); err != nil {
		t.Fatal(err)
	}
	send := func() {
		cl.SubmitOrder(protocol.TimestampedOrder{Order: protocol.Idle{}})
		msgs, _, _ := cl.Flush()
		for _, m := range msgs {
			if err := h.room.Step(1, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	send()
	h.room.Finish()
	send()
	var counted uint16
	for _, e := range h.room.Ready().Messages {
		r, err := ParseRejection(e.Data)
		if err != nil || r.Reason != RejectFinished {
			t.Fatalf("%+v %v", r, err)
		}
		counted += r.Count
	}
	h.room.Advance()
	if counted != 2 {
		t.Fatalf("%d of 2 orders answered", counted)
	}
}
