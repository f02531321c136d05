package fogauth

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// The non-interference harness: twin rooms built from one map, rules and
// simulation seed. Player 1 is the observer: one client, driven by a bot
// reading its partial world plus hostile orders (ids it does not see,
// build probes all over the map, attacks on hidden targets, sells and
// rally points of others' buildings), sends the same bytes to both rooms.
// The other players are played by bots reading the truth of their own
// room; in twin B one of them is also given a perturbing order, at a
// random tick, on entities player 1 cannot see (a hidden unit moves, a
// hidden building is started or sold, hidden units march on a third
// player). From there the twins differ in hidden state.
//
// The observation of a twin at a tick is what player 1 sees of its truth
// by a brute-force fog (its own entities, and entities in a cell within
// a sight disc of its sources): each visible entity's state, named by an
// identity that does not depend on hidden events (its owner and its rank
// among that owner's entities), with a target named the same way if
// visible and as none otherwise; and player 1's credits. Non-interference:
// as long as the twins' observations have been equal, every byte player 1
// received from them (StateUpdates, Rejections, and a MatchEnd at the
// end) is equal.
type twinRun struct {
	t        testing.TB
	ch       chooser
	players  int
	ticks    int
	rooms    [2]*Room
	ids      [2]identities
	bots     [2][]*bot.Bot // index player-1; nil for the observer
	others   [2][]*Client  // the other players' encoders (never receiving)
	observer *Client
	obsBot   *bot.Bot
	now      time.Duration

	perturbAt uint64
	perturbed bool
	cutoff    uint64 // first tick whose observations differ; 0: none
	compared  uint64 // ticks whose bytes were compared
	oracle    int    // observer orders whose truth verdicts differed between the twins while observations were equal
	probes    int    // hostile orders sent
}

// chooser is where the harness's random choices come from: a seeded
// generator (property test) or a fuzzer's bytes.
type chooser interface{ intn(n int) int }

type rngChooser struct{ r sim.SplitMix64 }

func (c *rngChooser) intn(n int) int { return int(c.r.Intn(uint64(n))) }

// byteChooser takes each choice from the next byte (0 once they run out).
type byteChooser struct{ b []byte }

func (c *byteChooser) intn(n int) int {
	if len(c.b) == 0 {
		return 0
	}
	v := int(c.b[0])
	c.b = c.b[1:]
	return v % n
}

// identity names an entity the same way in both twins whatever hidden
// entities were created: its owner and its rank among the entities that
// owner had, in creation order.
type identity struct {
	owner protocol.PlayerID
	rank  uint32
}

type identities struct {
	of    map[protocol.EntityID]identity
	count [sim.MaxPlayers + 1]uint32
	last  protocol.EntityID
}

// update names the entities created since the last call.
func (ids *identities) update(ents []sim.EntityState) {
	if ids.of == nil {
		ids.of = map[protocol.EntityID]identity{}
	}
	for i := range ents {
		e := &ents[i]
		if e.ID <= ids.last {
			continue
		}
		ids.count[e.Owner]++
		ids.of[e.ID] = identity{owner: e.Owner, rank: ids.count[e.Owner]}
		ids.last = e.ID
	}
}

// seen is one entity of an observation.
type seen struct {
	id     identity
	target identity // zero: none, or not visible
	state  sim.EntityState
}

// observe is player's observation of room's truth.
func observe(r *Room, ids *identities, player protocol.PlayerID) ([]seen, int32) {
	s := rtsOf(r)
	ids.update(s.Entities())
	src := s.SightSources(player)
	visible := map[protocol.EntityID]bool{}
	for _, e := range s.Entities() {
		if e.Owner == player || seenBy(src, e.Pos) {
			visible[e.ID] = true
		}
	}
	var out []seen
	for _, e := range s.Entities() {
		if !visible[e.ID] {
			continue
		}
		o := seen{id: ids.of[e.ID], state: e}
		if visible[e.Target] {
			o.target = ids.of[e.Target]
		}
		o.state.ID, o.state.Target = 0, 0
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b seen) int {
		return cmp.Or(cmp.Compare(a.id.owner, b.id.owner), cmp.Compare(a.id.rank, b.id.rank))
	})
	return out, s.Credits(player)
}

func newTwinRun(t testing.TB, ch chooser, seed uint64, players, units, ticks int) *twinRun {
	t.Helper()
	md, rules, err := scenario.Generate(scenario.Params{Players: players, UnitsPerPlayer: units, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	w := &twinRun{t: t, ch: ch, players: players, ticks: ticks}
	for k := range w.rooms {
		r, err := newRTSRoom(Config{}, md, rules, seed^0x5eed, 0)
		if err != nil {
			t.Fatal(err)
		}
		w.rooms[k] = r
		w.bots[k] = make([]*bot.Bot, players)
		w.others[k] = make([]*Client, players)
		for p := 1; p <= players; p++ {
			if err := r.AddClient(ClientID(p), protocol.PlayerID(p)); err != nil {
				t.Fatal(err)
			}
			if p > 1 {
				w.bots[k][p-1] = bot.New(protocol.PlayerID(p), seed+uint64(p))
				w.others[k][p-1] = NewClient(protocol.PlayerID(p))
			}
		}
	}
	w.observer = NewClient(1)
	w.obsBot = bot.New(1, seed)
	w.perturbAt = uint64(1 + ch.intn(max(ticks/2, 1)))
	return w
}

// run plays the twins until the observations differ or the ticks run out.
func (w *twinRun) run() {
	for tick := uint64(1); tick <= uint64(w.ticks); tick++ {
		w.now = w.rooms[0].NextDeadline()
		var out [2][]byte
		for k, r := range w.rooms {
			w.othersPlay(k, tick)
			if err := r.RunDue(w.now); err != nil {
				w.t.Fatal(err)
			}
			out[k] = w.collect(r)
		}
		a, ca := observe(w.rooms[0], &w.ids[0], 1)
		b, cb := observe(w.rooms[1], &w.ids[1], 1)
		if ca != cb || !slices.Equal(a, b) {
			w.cutoff = tick // the difference entered player 1's vision
			return
		}
		w.compared++
		if !bytes.Equal(out[0], out[1]) {
			w.t.Fatalf("tick %d (perturbed at %d): player 1 sees the same in both twins but receives different bytes:\nA %x\nB %x",
				tick, w.perturbAt, out[0], out[1])
		}
		w.observerPlays(out[0])
	}
	for k := range w.rooms {
		w.rooms[k].Finish()
	}
	var ends [2][]byte
	for k, r := range w.rooms {
		e, _ := r.MatchEnd(1)
		ends[k] = AppendMatchEnd(nil, e)
	}
	if !bytes.Equal(ends[0], ends[1]) {
		w.t.Fatalf("MatchEnds differ: %x, %x", ends[0], ends[1])
	}
}

// collect returns everything the room sends player 1 this tick, framed
// (reliable flag, length, bytes), and releases the rest.
func (w *twinRun) collect(r *Room) []byte {
	var b []byte
	for _, e := range r.Ready().Messages {
		if e.To != 1 {
			continue
		}
		flag := byte(0)
		if e.Reliable {
			flag = 1
		}
		b = append(b, flag)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.Data)))
		b = append(b, e.Data...)
	}
	r.Advance()
	return b
}

// othersPlay gives the other players' bot orders in twin k (the bots read
// their room's truth), and twin B's perturbation at its tick.
func (w *twinRun) othersPlay(k int, tick uint64) {
	r := w.rooms[k]
	for p := 2; p <= w.players; p++ {
		orders := w.bots[k][p-1].Orders(rtsOf(r), nil)
		if k == 1 && p == 2 && (tick == w.perturbAt || (tick > w.perturbAt && w.ch.intn(20) == 0)) {
			orders = append(orders, w.perturbation(r)...)
			w.perturbed = true
		}
		cl := w.others[k][p-1]
		for _, o := range orders {
			o.Order = aliased(r, ClientID(p), o.Order)
			cl.SubmitOrder(o)
		}
		msgs, _, err := cl.Flush()
		if err != nil {
			w.t.Fatal(err)
		}
		for _, m := range msgs {
			if err := r.Step(ClientID(p), m); err != nil {
				w.t.Fatal(err)
			}
		}
	}
}

// perturbation is an order of player 2 on entities player 1 cannot see.
func (w *twinRun) perturbation(r *Room) []protocol.TimestampedOrder {
	s := rtsOf(r)
	src := s.SightSources(1)
	var units, structures []sim.EntityState
	for _, e := range s.Entities() {
		if e.Owner != 2 || seenBy(src, e.Pos) {
			continue
		}
		if sim.CategoryOf(&e) == sim.CategoryUnit {
			units = append(units, e)
		} else {
			structures = append(structures, e)
		}
	}
	t := s.Terrain()
	cell := func(x, y int) protocol.WorldPos {
		return sim.CellCenter(min(max(x, 0), t.Width()-1), min(max(y, 0), t.Height()-1))
	}
	pick := func(es []sim.EntityState) sim.EntityState { return es[w.ch.intn(len(es))] }
	var o protocol.PlayerOrder
	switch kind := w.ch.intn(4); {
	case kind == 0 && len(units) > 0: // a hidden unit moves
		o = protocol.Move{Units: []protocol.EntityID{pick(units).ID}, Target: cell(w.ch.intn(t.Width()), w.ch.intn(t.Height()))}
	case kind == 1 && len(structures) > 0: // a hidden building is started
		x, y := sim.CellOf(pick(structures).Pos)
		o = protocol.Build{Structure: protocol.StructureType(sim.TypeTurret), Pos: cell(x+w.ch.intn(9)-4, y+w.ch.intn(9)-4)}
	case kind == 2 && len(structures) > 0: // a hidden building dies
		o = protocol.Sell{Building: pick(structures).ID}
	case len(units) > 0: // hidden units march on another player: a hidden fight
		var ids []protocol.EntityID
		for _, u := range units[:min(len(units), 8)] {
			ids = append(ids, u.ID)
		}
		target := cell(t.Width()/2, t.Height()/2)
		for _, e := range s.Entities() {
			if e.Owner > 2 && e.Type == sim.TypeHQ {
				target = e.Pos
				break
			}
		}
		o = protocol.Attack{Units: ids, Target: protocol.Target{Kind: protocol.TargetGround, Pos: target}}
	default:
		return nil
	}
	return []protocol.TimestampedOrder{{Player: 2, Order: o}}
}

// aliased returns o with the simulation ids it names replaced by client
// id's aliases (those it has none for dropped from unit lists).
func aliased(r *Room, id ClientID, o protocol.PlayerOrder) protocol.PlayerOrder {
	return mapIDs(o, func(e protocol.EntityID) protocol.EntityID { return r.Alias(id, e) }, true)
}

// simIDs is o with client id's aliases replaced by simulation ids.
func simIDs(r *Room, id ClientID, o protocol.PlayerOrder) protocol.PlayerOrder {
	return mapIDs(o, func(e protocol.EntityID) protocol.EntityID { return r.SimID(id, e) }, false)
}

// mapIDs is o with every entity id it names mapped by f, on copies of its
// unit lists (without the ids mapped to 0 if drop).
func mapIDs(o protocol.PlayerOrder, f func(protocol.EntityID) protocol.EntityID, drop bool) protocol.PlayerOrder {
	units := func(ids []protocol.EntityID) []protocol.EntityID {
		out := make([]protocol.EntityID, 0, len(ids))
		for _, u := range ids {
			if m := f(u); m != 0 || !drop {
				out = append(out, m)
			}
		}
		return out
	}
	switch x := o.(type) {
	case protocol.Move:
		x.Units = units(x.Units)
		return x
	case protocol.Attack:
		x.Units = units(x.Units)
		if x.Target.Kind == protocol.TargetEntity {
			x.Target.Entity = f(x.Target.Entity)
		}
		return x
	case protocol.SetRallyPoint:
		x.Building = f(x.Building)
		return x
	case protocol.Sell:
		x.Building = f(x.Building)
		return x
	}
	return o
}

// observerPlays hands player 1's client what it received, lets its bot
// and the hostile prober give orders, and sends its messages to both
// twins.
func (w *twinRun) observerPlays(framed []byte) {
	for len(framed) > 0 {
		n := binary.LittleEndian.Uint32(framed[1:])
		if err := w.observer.Receive(framed[5 : 5+n]); err != nil {
			w.t.Fatal(err)
		}
		framed = framed[5+n:]
	}
	world := w.observer.World()
	orders := w.obsBot.Orders(botWorld(w.rooms[0], world), nil)
	for range w.ch.intn(4) {
		o, raw := w.hostile(world)
		w.checkOracle(raw)
		orders = append(orders, protocol.TimestampedOrder{Player: 1, Order: o})
		w.probes++
	}
	for _, o := range orders {
		w.observer.SubmitOrder(o)
	}
	msgs, ack, err := w.observer.Flush()
	if err != nil {
		w.t.Fatal(err)
	}
	if ack != nil {
		msgs = append(msgs, ack)
	}
	for _, m := range msgs {
		for _, r := range w.rooms {
			if err := r.Step(1, m); err != nil {
				w.t.Fatal(err)
			}
		}
	}
}

// hostile is an order a cheating client would try: naming ids it does
// not see (aliases past the highest it knows, which the room has given to
// entities it lists, or never gave), attacking them, probing build cells
// anywhere, selling or rallying others' buildings. raw is the same order
// as the wire named entities before aliases (the probed id as a
// simulation id, its own units by theirs), for checkOracle.
func (w *twinRun) hostile(world *PartialWorld) (o, raw protocol.PlayerOrder) {
	o, probe := w.probe(world)
	raw = simIDs(w.rooms[0], 1, o)
	switch x := raw.(type) {
	case protocol.Move:
		x.Units[0] = probe
		raw = x
	case protocol.Attack:
		if x.Target.Kind == protocol.TargetEntity {
			x.Target.Entity = probe
		}
		raw = x
	case protocol.Sell:
		x.Building = probe
		raw = x
	case protocol.SetRallyPoint:
		x.Building = probe
		raw = x
	}
	return o, raw
}

// probe is hostile's order and the id it probes.
func (w *twinRun) probe(world *PartialWorld) (protocol.PlayerOrder, protocol.EntityID) {
	ents := world.Entities()
	var own []protocol.EntityID
	high := protocol.EntityID(0)
	for _, e := range ents {
		if e.Owner == 1 && sim.CategoryOf(&e) == sim.CategoryUnit {
			own = append(own, e.ID)
		}
		high = max(high, e.ID)
	}
	id := protocol.EntityID(1 + w.ch.intn(int(high)+16))
	t := rtsOf(w.rooms[0]).Terrain()
	pos := sim.CellCenter(w.ch.intn(t.Width()), w.ch.intn(t.Height()))
	some := own[:min(len(own), 1+w.ch.intn(4))]
	switch w.ch.intn(6) {
	case 0:
		return protocol.Move{Units: append([]protocol.EntityID{id}, some...), Target: pos}, id
	case 1:
		return protocol.Attack{Units: some, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: id}}, id
	case 2:
		if c, ok := w.hiddenCell(); ok && w.ch.intn(2) == 0 {
			pos = c // the best probe: where a twin has a hidden structure
		}
		return protocol.Build{Structure: protocol.StructureType(sim.TypeBarracks), Pos: pos}, 0
	case 3:
		return protocol.Sell{Building: id}, id
	case 4:
		return protocol.SetRallyPoint{Building: id, Pos: pos}, id
	}
	return protocol.Attack{Units: some, Target: protocol.Target{Kind: protocol.TargetGround, Pos: pos}}, 0
}

// hiddenCell is the cell of a structure one twin has and player 1 does
// not see: the test lets the prober cheat, so its probes hit.
func (w *twinRun) hiddenCell() (protocol.WorldPos, bool) {
	s := rtsOf(w.rooms[w.ch.intn(2)])
	src := s.SightSources(1)
	var cells []protocol.WorldPos
	for _, e := range s.Entities() {
		if e.Owner > 1 && sim.CategoryOf(&e) == sim.CategoryStructure && !seenBy(src, e.Pos) {
			cells = append(cells, e.Pos)
		}
	}
	if len(cells) == 0 {
		return protocol.WorldPos{}, false
	}
	return cells[w.ch.intn(len(cells))], true
}

// checkOracle counts an order (with simulation ids) whose verdict against
// the whole truth (the validation this mode used before validating
// against knowledge, on a wire without aliases) differs between the
// twins: an oracle the harness would have caught.
func (w *twinRun) checkOracle(o protocol.PlayerOrder) {
	var v [2]sim.OrderValidity
	for k, r := range w.rooms {
		v[k] = rtsOf(r).ValidateOrder(1, o)
	}
	if v[0] != v[1] {
		w.oracle++
	}
}

// TestNonInterference is the property over many seeds and random
// perturbations: while player 1's observations of the twins are equal,
// the bytes it receives are equal. It also checks that the harness has
// teeth: the twins' hidden states did diverge, the comparisons ran long
// after the perturbation, and the observer's probes met truth verdicts
// that differed between the twins (what validating against the whole
// truth would have leaked).
func TestNonInterference(t *testing.T) {
	seeds := 16
	if testing.Short() {
		seeds = 4
	}
	var diverged, oracle, compared, afterPerturb int
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newTwinRun(t, &rngChooser{sim.SplitMix64{S: seed * 7919}}, seed, 3, 15, 300)
			w.run()
			if rtsOf(w.rooms[0]).StateHash() != rtsOf(w.rooms[1]).StateHash() {
				diverged++
			}
			oracle += w.oracle
			compared += int(w.compared)
			if w.compared > w.perturbAt {
				afterPerturb += int(w.compared - w.perturbAt)
			}
			t.Logf("perturbed at %d; observations equal for %d ticks (cutoff %d); %d hostile orders; %d truth verdicts differed",
				w.perturbAt, w.compared, w.cutoff, w.probes, w.oracle)
		})
	}
	t.Logf("%d of %d seeds diverged; %d ticks compared, %d after the perturbation; %d oracle verdicts", diverged, seeds, compared, afterPerturb, oracle)
	if diverged < seeds/2 || afterPerturb < 100*seeds/2 || oracle == 0 {
		t.Errorf("the harness lacks teeth: %d of %d seeds diverged, %d ticks compared after a perturbation, %d oracle verdicts",
			diverged, seeds, afterPerturb, oracle)
	}
}

// FuzzNonInterference: the fuzzer's bytes choose the seed, the
// perturbation and its tick, and the observer's hostile orders.
func FuzzNonInterference(f *testing.F) {
	for _, s := range []string{"\x01", "\x02\x10\x00\x03\x05", "\x07\x30\x01\x02\x03\x04\x05\x06\x07\x08", "\x09\x02\x02\x02\x05\x05\x05\x01\x00\x04"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		ch := &byteChooser{b: data[1:]}
		w := newTwinRun(t, ch, uint64(data[0]), 3, 6, 60)
		w.run()
	})
}

// TestTargetsStayInVision is the simulation's side of the guarantee, which
// the harness above cannot see (a unit reacting to a hidden enemy changes
// what its own player sees, so the observations differ): over bot matches,
// no entity ever targets one its owner could not see, by a brute-force
// fog, at this tick or the last (a unit keeps or acquires a target only in
// a cell its player saw at the last Publish; the target may have stepped
// out since, and is dropped at the next tick).
func TestTargetsStayInVision(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		h := scenarioHarness(t, Config{}, 3, 25, seed)
		for p := 1; p <= 3; p++ {
			h.join(ClientID(p), protocol.PlayerID(p), true)
		}
		prev := map[protocol.PlayerID]map[protocol.EntityID]bool{}
		targeting := 0
		for range 400 {
			h.runTicks(1)
			s := rtsOf(h.room)
			now := map[protocol.PlayerID]map[protocol.EntityID]bool{}
			for p := 1; p <= 3; p++ {
				player := protocol.PlayerID(p)
				src := s.SightSources(player)
				now[player] = map[protocol.EntityID]bool{}
				for _, e := range s.Entities() {
					if e.Owner == player || seenBy(src, e.Pos) {
						now[player][e.ID] = true
					}
				}
			}
			for _, e := range s.Entities() {
				if e.Target == 0 || e.Owner == sim.Neutral {
					continue
				}
				targeting++
				if !now[e.Owner][e.Target] && !prev[e.Owner][e.Target] {
					t.Fatalf("seed %d tick %d: entity %d of player %d targets %d, which its player does not see", seed, h.room.Tick(), e.ID, e.Owner, e.Target)
				}
			}
			prev = now
		}
		if targeting == 0 {
			t.Fatalf("seed %d: no entity ever had a target", seed)
		}
	}
}
