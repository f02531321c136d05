package fogauth

import (
	"cmp"
	"container/heap"
	"crypto/sha256"
	"encoding/binary"
	"slices"

	"github.com/tickwire/tickwire/protocol"
)

// aliases is one client's entity numbering. The simulation numbers
// entities with one counter for the whole match, so a raw id would tell a
// client how many entities everyone created before it; instead each
// client sees its own numbering, in which nothing depends on what its
// player cannot see:
//
//   - an entity gets the smallest alias free on this client's wire when
//     the client first sees it, and keeps it only while the client knows
//     it: once the client acknowledged its Leave (and no Enter of it is
//     in flight) the alias is free again, so an entity that comes back
//     out of the fog is named afresh and nothing links it to the one that
//     left, nor counts how many distinct units passed;
//   - several first seen in one tick are named in the order of what the
//     client sees of them (position, type, owner, then every other field
//     of its wire state), and entities it cannot tell apart by a
//     secret-keyed hash of their ids, never by the ids' order (which is
//     creation order).
//
// Ids in the client's orders are aliases too. Alias 0 is never given (0
// means "none"). An order still in flight that names an alias freed and
// given again reaches the new holder, as an order naming a unit that
// moved reaches it where it went.
type aliases struct {
	bySim map[protocol.EntityID]protocol.EntityID // simulation id → alias
	sims  []protocol.EntityID                     // alias-1 → simulation id; 0: free
	free  freeAliases                             // free aliases below len(sims)+1, smallest first
	key   [16]byte                                // the tie-break's secret (Config.AliasKey)
}

// of returns id's alias, giving it the smallest free one if it has none.
func (a *aliases) of(id protocol.EntityID) protocol.EntityID {
	if al, ok := a.bySim[id]; ok {
		return al
	}
	if a.bySim == nil {
		a.bySim = make(map[protocol.EntityID]protocol.EntityID)
	}
	var al protocol.EntityID
	if len(a.free) > 0 {
		al = heap.Pop(&a.free).(protocol.EntityID)
		a.sims[al-1] = id
	} else {
		a.sims = append(a.sims, id)
		al = protocol.EntityID(len(a.sims))
	}
	a.bySim[id] = al
	return al
}

// retire frees id's alias: the client no longer knows the entity.
func (a *aliases) retire(id protocol.EntityID) {
	al, ok := a.bySim[id]
	if !ok {
		return
	}
	delete(a.bySim, id)
	a.sims[al-1] = 0
	heap.Push(&a.free, al)
}

// lookup returns id's alias, or 0 if it has none.
func (a *aliases) lookup(id protocol.EntityID) protocol.EntityID { return a.bySim[id] }

// sim returns the simulation id of an alias, or 0 (no entity) for an
// alias not given now.
func (a *aliases) sim(alias protocol.EntityID) protocol.EntityID {
	if alias == 0 || uint64(alias) > uint64(len(a.sims)) {
		return 0
	}
	return a.sims[alias-1]
}

// name gives aliases to the entries at the indices fresh (entries first
// seen this tick), in the order of what the client sees of them, so that
// their numbering tells nothing of their simulation ids.
func (a *aliases) name(es []entry, fresh []int32, ents []protocol.EntityState, slots []int32) {
	slices.SortFunc(fresh, func(i, j int32) int {
		x, y := &ents[slots[es[i].acked.ID]], &ents[slots[es[j].acked.ID]]
		if c := cmp.Or(cmp.Compare(x.Pos.X, y.Pos.X), cmp.Compare(x.Pos.Y, y.Pos.Y), cmp.Compare(x.Pos.Z, y.Pos.Z),
			cmp.Compare(x.Type, y.Type), cmp.Compare(x.Owner, y.Owner), cmp.Compare(x.Health, y.Health),
			cmp.Compare(x.HealthMax, y.HealthMax), cmp.Compare(x.Facing, y.Facing), cmp.Compare(x.Flags, y.Flags),
			cmp.Compare(x.Anim, y.Anim), cmp.Compare(x.Cargo, y.Cargo), cmp.Compare(x.Veterancy, y.Veterancy)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.tieBreak(x.ID), a.tieBreak(y.ID)), cmp.Compare(x.ID, y.ID))
	})
	for _, i := range fresh {
		es[i].alias = a.of(es[i].acked.ID)
	}
}

// tieBreak is a keyed hash of id: the order of two entities a client
// cannot tell apart, unpredictable without the key.
func (a *aliases) tieBreak(id protocol.EntityID) uint64 {
	var b [20]byte
	copy(b[:], a.key[:])
	binary.LittleEndian.PutUint32(b[16:], uint32(id))
	h := sha256.Sum256(b[:])
	return binary.LittleEndian.Uint64(h[:])
}

// freeAliases is a min-heap of free aliases.
type freeAliases []protocol.EntityID

func (f freeAliases) Len() int           { return len(f) }
func (f freeAliases) Less(i, j int) bool { return f[i] < f[j] }
func (f freeAliases) Swap(i, j int)      { f[i], f[j] = f[j], f[i] }
func (f *freeAliases) Push(x any)        { *f = append(*f, x.(protocol.EntityID)) }
func (f *freeAliases) Pop() any {
	old := *f
	x := old[len(old)-1]
	*f = old[:len(old)-1]
	return x
}
