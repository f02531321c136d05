package fogauth

import (
	"slices"

	"github.com/tickwire/tickwire/protocol"
)

// entry is what the server knows of one entity for one client: the state
// the client has acknowledged, and the entity's place in the priority
// accumulator.
type entry struct {
	acked   protocol.EntityState // valid when present; acked.ID is always set
	present bool                 // the client acknowledged holding the entity
	// A StateUpdate the client may or may not have applied (its
	// acknowledgement never came) makes what it carried uncertain: unsure
	// for an Enter or a Leave (the next delta is an Enter or a Leave
	// again), dirty for an Update's fields (sent again whatever their
	// value).
	unsure bool
	// enterOut: an Enter of the entity is in flight (neither
	// acknowledged nor forgotten), so the client may come to hold it:
	// the entry, and its alias, stay.
	enterOut bool
	dirty    FieldMask
	accum    uint32 // accumulated priority while a delta waits
	lastSent uint64 // tick the entity was last sent or up to date
	// staleSince is the tick from which the client's acknowledged state
	// of this visible entity has differed from the truth (0: it has not).
	// When a StateUpdate carrying the entity is acknowledged, the client
	// was stale from staleSince until that StateUpdate was sent.
	staleSince uint64
	// flight is the last delta sent, at tick flightTick; while it may
	// still be acknowledged it is not sent again. (The fields are ordered
	// so that none is padded: 120 bytes, the flight's state last.)
	flightTick uint64
	flight     Delta
	alias      protocol.EntityID // the entity's id on this client's wire (see aliases)
}

// unknown reports whether the client cannot hold the entity: it neither
// acknowledged holding it nor may have applied an Enter of it.
func (e *entry) unknown() bool { return !e.present && !e.unsure && !e.enterOut }

// pending is one entity's delta waiting for the budget: its kind and
// field mask, the entity's entry, and where its current state is in the
// simulation's entities (-1 for a Leave). An Enter's mask lists the fields
// of a trailing Update in the same StateUpdate (the Enter layout lacks
// target, cargo and veterancy).
type pending struct {
	kind  byte
	tier  Tier // set when the budget is saturated
	mask  FieldMask
	entry int32
	ent   int32
	size  int32
	alias protocol.EntityID // the entity's alias: deltas go out in alias order
	// hide: the entity's target is one the client does not see, sent as
	// none (see cursor.filter).
	hide bool
}

// delta is p as a Delta, with the entity's current state.
func (p *pending) delta(v *view, ents []protocol.EntityState) Delta {
	if p.kind == DeltaLeave {
		return Delta{Kind: DeltaLeave, Entity: protocol.EntityState{ID: v.entries[p.entry].acked.ID}}
	}
	d := Delta{Kind: p.kind, Mask: p.mask, Entity: ents[p.ent]}
	if p.hide {
		d.Entity.Target = 0
	}
	return d
}

// view is a client's visibility state: entries in ascending entity ID,
// rebuilt every tick by merging the previous entries with the visible set.
type view struct {
	entries, spare []entry
	pend           []pending
	names          aliases
	fresh          []int32  // scratch: entries first seen this tick
	seen           []uint64 // scratch: bitset of the visible entity IDs the client holds
	inFlight       int      // deltas left out of pend because they are in flight
	maxStale       uint64   // longest a visible entity's change waited for the StateUpdate that delivered it
}

// diff rebuilds v.entries from the visible set and lists in v.pend the
// delta each entity needs to take the client from its acknowledged state
// to the truth: Enter for a visible entity the client does not hold (or
// whose type or maximum health changed, which Updates cannot carry),
// Update for changed fields, Leave for a held entity no longer visible.
// visible and ents are in ascending ID order, every visible ID is in
// ents, and slots[id] is the index in ents of every entity id of ents
// (see indexEntities).
//
// A delta identical to the one sent fewer than resend ticks ago is not
// listed: that one is in flight, and its acknowledgement is due. It is
// sent again once resend ticks pass without one.
//
// Every field naming another entity (the target) is compared and sent as
// the client may know it: the entity if visible and held (the client
// acknowledged its Enter, so the name resolves on its side), otherwise
// none; once the target's Enter is acknowledged an Update names it. Each
// pending delta carries its entity's alias, which orders the deltas on
// the wire (see selector.plan).
func (v *view) diff(visible []protocol.EntityID, ents []protocol.EntityState, slots []int32, tick, resend uint64) {
	v.pend, v.inFlight = v.pend[:0], 0
	v.seen = markSeen(v.seen, visible)
	v.keepHeld(visible)
	c := cursor{ents: ents, slots: slots, seen: v.seen, tick: tick, resend: resend}
	if !v.gains(visible) {
		v.diffInPlace(visible, &c)
	} else {
		v.merge(visible, &c)
	}
}

// merge is diff when the visible set holds entities the view has no
// entry for: the entries are rebuilt, and those first seen are given
// aliases.
func (v *view) merge(visible []protocol.EntityID, c *cursor) {
	ents, slots := c.ents, c.slots
	v.fresh = v.fresh[:0]
	old, nw := v.entries, v.spare[:0]
	i, j := 0, 0
	for i < len(old) || j < len(visible) {
		vis := false
		switch {
		case j == len(visible) || (i < len(old) && old[i].acked.ID < visible[j]):
			if old[i].unknown() {
				v.names.retire(old[i].acked.ID)
				i++
				continue // unknown to the client and invisible: forget it
			}
			nw = append(nw, old[i])
			i++
		case i == len(old) || visible[j] < old[i].acked.ID:
			nw = append(nw, entry{acked: protocol.EntityState{ID: visible[j]}, lastSent: c.tick})
			v.fresh = append(v.fresh, int32(len(nw)-1))
			j, vis = j+1, true
		default:
			nw = append(nw, old[i])
			i, j, vis = i+1, j+1, true
		}
		v.check(nw, len(nw)-1, vis, c)
	}
	v.entries, v.spare = nw, old
	if len(v.fresh) > 0 {
		v.names.name(nw, v.fresh, ents, slots)
		for i := range v.pend {
			if p := &v.pend[i]; p.alias == 0 {
				p.alias = nw[p.entry].alias // first seen this tick: named just now
			}
		}
	}
}

// gains reports whether visible holds an entity the view has no entry
// for (only then must the entries be rebuilt rather than filtered in
// place).
func (v *view) gains(visible []protocol.EntityID) bool {
	i := 0
	for _, id := range visible {
		for i < len(v.entries) && v.entries[i].acked.ID < id {
			i++
		}
		if i == len(v.entries) || v.entries[i].acked.ID != id {
			return true
		}
	}
	return false
}

// diffInPlace is diff when every visible entity has an entry: entries
// are only dropped, so they are filtered in place.
func (v *view) diffInPlace(visible []protocol.EntityID, c *cursor) {
	es := v.entries
	w, j := 0, 0
	for i := range es {
		vis := j < len(visible) && visible[j] == es[i].acked.ID
		if vis {
			j++
		} else if es[i].unknown() {
			v.names.retire(es[i].acked.ID)
			continue // unknown to the client and invisible: forget it
		}
		if w != i {
			es[w] = es[i]
		}
		v.check(es, w, vis, c)
		w++
	}
	v.entries = es[:w]
}

// markSeen makes seen the bitset of the IDs of visible (ascending),
// reusing its storage.
func markSeen(seen []uint64, visible []protocol.EntityID) []uint64 {
	if len(visible) == 0 {
		return seen[:0]
	}
	n := int(visible[len(visible)-1]/64) + 1
	if cap(seen) < n {
		seen = make([]uint64, n, n+n/4)
	}
	seen = seen[:n]
	clear(seen)
	for _, id := range visible {
		seen[id/64] |= 1 << (id % 64)
	}
	return seen
}

// keepHeld clears from seen the visible entities the client does not
// hold: a target names only an entity whose Enter the client applied and
// acknowledged, never one whose Enter is deferred, in flight or in
// another StateUpdate of the tick.
func (v *view) keepHeld(visible []protocol.EntityID) {
	i := 0
	for _, id := range visible {
		for i < len(v.entries) && v.entries[i].acked.ID < id {
			i++
		}
		if i == len(v.entries) || v.entries[i].acked.ID != id || !v.entries[i].present || v.entries[i].unsure {
			v.seen[id/64] &^= 1 << (id % 64)
		}
	}
}

// cursor finds the entries' current states in the simulation's entities,
// as the client may see them.
type cursor struct {
	ents         []protocol.EntityState
	slots        []int32
	seen         []uint64 // bit id of word id/64: entity id is visible and held
	tick, resend uint64
	hidden       protocol.EntityState // scratch of filter
}

// filter returns e as the client may see it: a target it does not see is
// none. It reports whether it changed anything.
func (c *cursor) filter(e *protocol.EntityState) (*protocol.EntityState, bool) {
	if e.Target == 0 {
		return e, false
	}
	if w := int(e.Target / 64); w < len(c.seen) && c.seen[w]>>(e.Target%64)&1 != 0 {
		return e, false
	}
	c.hidden = *e
	c.hidden.Target = 0
	return &c.hidden, true
}

// indexEntities makes slots[id] the index in ents of each entity id of
// ents (ascending ID), reusing slots' storage; other slots are left as
// they were, never read. It grows with the highest entity ID, with room
// to spare so that new entities rarely make it allocate.
func indexEntities(slots []int32, ents []protocol.EntityState) []int32 {
	if len(ents) == 0 {
		return slots[:0]
	}
	n := int(ents[len(ents)-1].ID) + 1
	if cap(slots) < n {
		slots = make([]int32, n, n+n/4)
	}
	slots = slots[:n]
	for i := range ents {
		slots[ents[i].ID] = int32(i)
	}
	return slots
}

// check lists the delta that entry es[i] needs, if any.
func (v *view) check(es []entry, i int, vis bool, c *cursor) {
	e := &es[i]
	var (
		kind byte
		mask FieldMask
		cur  *protocol.EntityState
		ent  = int32(-1)
		hide bool
	)
	if !vis {
		kind = DeltaLeave
	} else {
		k := c.slots[e.acked.ID]
		ent = k
		cur, hide = c.filter(&c.ents[k])
		switch {
		case !e.present || e.unsure || e.acked.Type != cur.Type || e.acked.HealthMax != cur.HealthMax:
			kind, mask = DeltaEnter, enterExtra(cur)
		default:
			if m := Diff(&e.acked, cur) | e.dirty; m != 0 {
				kind, mask = DeltaUpdate, m
			}
		}
	}
	switch {
	case kind == 0:
		e.accum, e.lastSent, e.staleSince = 0, c.tick, 0 // up to date
		return
	case vis && e.staleSince == 0:
		e.staleSince = c.tick
	}
	if c.tick-e.flightTick < c.resend && sameDelta(&e.flight, kind, mask, cur) {
		v.inFlight++
		return
	}
	v.pend = append(v.pend, pending{kind: kind, mask: mask, entry: int32(i), ent: ent, size: int32(itemSize(kind, mask)),
		alias: e.alias, hide: hide})
}

// enterExtra is the mask of the fields an Enter cannot carry that are set
// in e: the trailing Update's.
func enterExtra(e *protocol.EntityState) FieldMask {
	var m FieldMask
	if e.Target != 0 {
		m |= FieldTarget
	}
	if e.Cargo != 0 {
		m |= FieldCargo
	}
	if e.Veterancy != 0 {
		m |= FieldVeterancy
	}
	return m
}

// sameDelta reports whether a delta of kind and mask with the state cur
// would tell the client nothing the delta a did.
func sameDelta(a *Delta, kind byte, mask FieldMask, cur *protocol.EntityState) bool {
	switch {
	case a.Kind != kind || a.Mask != mask:
		return false
	case kind == DeltaEnter:
		return a.Entity == *cur
	case kind == DeltaUpdate:
		return Diff(&a.Entity, cur)&mask == 0
	}
	return true
}

// itemSize is the wire size of a pending delta, with an Enter's trailing
// Update.
func itemSize(kind byte, mask FieldMask) int {
	switch {
	case kind == DeltaEnter && mask != 0:
		return EnterSize + UpdateHeaderSize + mask.Size()
	case kind == DeltaEnter:
		return EnterSize
	case kind == DeltaUpdate:
		return UpdateHeaderSize + mask.Size()
	}
	return LeaveSize
}

// find returns the index of id's entry, or the index where it belongs.
func (v *view) find(id protocol.EntityID) (int, bool) {
	lo, hi := 0, len(v.entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if v.entries[m].acked.ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(v.entries) && v.entries[lo].acked.ID == id
}

// entry returns the index of id's entry, or the index where it belongs,
// trying hint first: where the entry was when a delta for it was sent
// (entries move only when the view is rebuilt or an entry is inserted).
func (v *view) entry(id protocol.EntityID, hint int32) (int, bool) {
	if h := int(hint); h >= 0 && h < len(v.entries) && v.entries[h].acked.ID == id {
		return h, true
	}
	return v.find(id)
}

// acknowledge records that the client applied d, sent at tick while its
// entry was at hint.
func (v *view) acknowledge(d *Delta, hint int32, tick uint64) {
	i, ok := v.entry(d.Entity.ID, hint)
	if ok && v.entries[i].staleSince != 0 {
		e := &v.entries[i]
		if tick >= e.staleSince {
			v.maxStale = max(v.maxStale, tick-e.staleSince)
		}
		e.staleSince = 0 // marked again at the next tick if still behind
	}
	switch d.Kind {
	case DeltaEnter:
		if !ok {
			// The entity left the visible set while its Enter was in
			// flight: the client holds it, so it must learn of the Leave.
			v.entries = slices.Insert(v.entries, i, entry{lastSent: tick, flight: *d, flightTick: tick, alias: v.names.lookup(d.Entity.ID)})
		}
		e := &v.entries[i]
		e.acked = EnterState(&d.Entity)
		CopyFields(&e.acked, &d.Entity, d.Mask)
		e.present, e.unsure, e.enterOut, e.dirty = true, false, false, 0
	case DeltaUpdate:
		if e := &v.entries[i]; ok && e.present {
			CopyFields(&e.acked, &d.Entity, d.Mask)
			e.dirty &^= d.Mask
		}
	case DeltaLeave:
		if ok {
			e := &v.entries[i]
			e.present, e.unsure, e.dirty = false, false, 0
		}
	}
}

// forget records that the client may or may not have applied d, sent
// while its entry was at hint.
func (v *view) forget(d *Delta, hint int32) {
	i, ok := v.entry(d.Entity.ID, hint)
	switch {
	case d.Kind == DeltaUpdate:
		if ok && v.entries[i].present {
			v.entries[i].dirty |= d.Mask
		}
	case ok:
		v.entries[i].unsure, v.entries[i].enterOut = true, false
	default:
		v.entries = slices.Insert(v.entries, i, entry{acked: protocol.EntityState{ID: d.Entity.ID}, unsure: true, alias: v.names.lookup(d.Entity.ID)})
	}
}
