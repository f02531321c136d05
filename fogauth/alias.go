package fogauth

import (
	"cmp"
	"slices"

	"github.com/tickwire/tickwire/protocol"
)

// aliases is one client's entity numbering. The simulation numbers
// entities with one counter for the whole match, so a raw id would tell a
// client how many entities everyone created before it; instead each
// client sees its own dense numbering, 1, 2, 3, … in the order it first
// sees entities (several first seen in one tick are numbered by what the
// client sees of them: position, type, owner), and an entity keeps its
// alias for the client's connection. Ids in the client's orders are
// aliases too. Alias 0 is never given (0 means "none").
type aliases struct {
	bySim map[protocol.EntityID]protocol.EntityID // simulation id → alias
	sims  []protocol.EntityID                     // alias-1 → simulation id
}

// of returns id's alias, giving it the next one if it has none.
func (a *aliases) of(id protocol.EntityID) protocol.EntityID {
	if al, ok := a.bySim[id]; ok {
		return al
	}
	if a.bySim == nil {
		a.bySim = make(map[protocol.EntityID]protocol.EntityID)
	}
	a.sims = append(a.sims, id)
	al := protocol.EntityID(len(a.sims))
	a.bySim[id] = al
	return al
}

// lookup returns id's alias, or 0 if it has none.
func (a *aliases) lookup(id protocol.EntityID) protocol.EntityID { return a.bySim[id] }

// sim returns the simulation id of an alias, or 0 (no entity) for an
// alias never given.
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
		return cmp.Or(cmp.Compare(x.Pos.X, y.Pos.X), cmp.Compare(x.Pos.Y, y.Pos.Y), cmp.Compare(x.Pos.Z, y.Pos.Z),
			cmp.Compare(x.Type, y.Type), cmp.Compare(x.Owner, y.Owner), cmp.Compare(x.ID, y.ID))
	})
	for _, i := range fresh {
		es[i].alias = a.of(es[i].acked.ID)
	}
}
