package action_test

import (
	"cmp"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/tickwire/tickwire/sim/action"
)

// craft restores w to from's header (tick, RNG) with ents (ascending id)
// as the entities and the id counter past every positive id.
func craft(t *testing.T, w, from *action.World, ents []action.Entity) {
	t.Helper()
	b := from.Snapshot(nil)[:action.HeaderSize]
	next := uint32(1)
	for i := range ents {
		next = max(next, uint32(max(ents[i].ID, 0))+1)
		b = action.AppendEntity(b, &ents[i])
	}
	binary.LittleEndian.PutUint32(b[37:], next)
	binary.LittleEndian.PutUint32(b[41:], uint32(len(ents)))
	if err := w.Restore(b); err != nil {
		t.Fatal(err)
	}
}

// TestNoGhostHit: a player killed by one projectile is not hit again by a
// second one in the same tick, even when an entity with a lower id (here
// a predicting client's provisional projectile) ended earlier in the tick.
// Before projectiles were removed at the end of their system, the second
// projectile found a stale copy of the dead player and hit and killed it
// again.
func TestNoGhostHit(t *testing.T) {
	w := action.New(action.Config{NoColliders: true}, 1)
	for p := range action.PlayerID(3) {
		if _, err := w.Join(p + 1); err != nil {
			t.Fatal(err)
		}
	}
	at := func(x, y int) action.Vec3 { return action.Vec3{X: action.Units(x), Y: action.Units(y)} }
	player := func(id action.EntityID, pos action.Vec3, health int16) action.Entity {
		return action.Entity{ID: id, Kind: action.KindPlayer, Owner: action.PlayerID(id), Pos: pos,
			Health: health, Mana: 10, Flags: action.FlagGrounded}
	}
	shot := func(id action.EntityID, owner action.PlayerID, seq uint32, pos action.Vec3, life uint16) action.Entity {
		pos.Z = action.One
		return action.Entity{ID: id, Kind: action.KindProjectile, Owner: owner, ActionSeq: seq, Pos: pos, Health: 10, Timer: life}
	}
	craft(t, w, w, []action.Entity{
		shot(-9, 3, 9, at(30, 30), 1), // ends first: it shifts every later entity down
		player(1, at(5, 5), 100), player(2, at(40, 40), 100), player(3, at(20, 20), 1),
		shot(4, 1, 1, at(20, 20), 50), shot(5, 2, 1, at(20, 20), 50),
	})
	count := map[action.EventKind]int{}
	for _, e := range w.Step(nil, nil) {
		count[e.Kind]++
	}
	if count[action.EventHit] != 1 || count[action.EventDeath] != 1 || count[action.EventDespawn] != 2 {
		t.Fatalf("one kill expected, got events %v", count)
	}
	if n := len(w.Entities()); n != 4 {
		t.Fatalf("%d entities left, want 3 players and the projectile that missed", n)
	}
}

// canonical is a world's state and a tick's events with every projectile
// id left out: projectiles are known by (owner, action sequence), which a
// client and the server agree on whatever ids they gave them.
func canonical(w *action.World, ev []action.Event) ([]action.Entity, []action.Event) {
	es := slices.Clone(w.Entities())
	for i := range es {
		if es[i].Kind == action.KindProjectile {
			es[i].ID = 0
		}
	}
	slices.SortFunc(es, func(a, b action.Entity) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.ActionSeq, b.ActionSeq))
	})
	ev = slices.Clone(ev)
	for i := range ev {
		switch ev[i].Kind {
		case action.EventSpawn, action.EventHit, action.EventDeath, action.EventDespawn:
			ev[i].Entity = 0
		}
	}
	return es, ev
}

// TestEvolutionIndependentOfIDs is the property behind prediction parity:
// the world evolves the same whatever ids its projectiles carry. The twin
// starts from the same state with every projectile renumbered to a
// negative id (which reverses their id order and puts them before the
// players), spawns its own projectiles with provisional ids (negative,
// newest first), and must produce the same states, RNG and events tick
// after tick, projectiles compared by (owner, action sequence).
func TestEvolutionIndependentOfIDs(t *testing.T) {
	ticks := 1500
	if testing.Short() {
		ticks = 400
	}
	for _, seed := range []uint64{1, 2, 3, 42} {
		a := newMatch(t, action.Config{}, 8, seed)
		for range 200 {
			a.step()
		}
		ents := slices.Clone(a.w.Entities())
		for i := range ents {
			if ents[i].Kind == action.KindProjectile {
				ents[i].ID = -ents[i].ID
			}
		}
		slices.SortFunc(ents, func(x, y action.Entity) int { return cmp.Compare(x.ID, y.ID) })
		b := action.New(action.Config{}, seed)
		craft(t, b, a.w, ents)
		b.SetProvisionalSpawns(true)
		var ev []action.Event
		for range ticks {
			a.inputs = a.inputs[:0]
			for i, bot := range a.bots {
				p := action.PlayerID(i + 1)
				in := bot.Input(a.w, p)
				// Cast sequences unique across players, so provisional ids
				// (-sequence) never collide.
				in.CastSeq = 1000 + uint32(a.w.Tick())*16 + uint32(p)
				a.inputs = append(a.inputs, action.PlayerInput{Player: p, Input: in})
			}
			a.events = a.w.Step(a.inputs, a.events[:0])
			ev = b.Step(a.inputs, ev[:0])
			ea, va := canonical(a.w, a.events)
			eb, vb := canonical(b, ev)
			if a.w.RNGState() != b.RNGState() || !slices.Equal(ea, eb) || !slices.Equal(va, vb) {
				t.Fatalf("seed %d: diverged at tick %d:\nids %v\nnegative ids %v\nevents %v\nevents %v", seed, b.Tick(), ea, eb, va, vb)
			}
		}
	}
}
