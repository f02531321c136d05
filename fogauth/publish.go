package fogauth

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/tickwire/tickwire/protocol"
)

// Publish runs the send phases of a tick: fog update per player (skipped
// for a player whose sight sources hash as last tick), per-client deltas
// against what the client acknowledged, priority accumulator and budget,
// serialisation into StateUpdates of at most MaxMessageSize bytes.
func (r *Room) Publish() {
	r.updateFog()
	ents := r.game.Entities()
	r.slots = indexEntities(r.slots, ents)
	spectators := false
	for _, c := range r.clients {
		spectators = spectators || c.player == 0
	}
	if spectators {
		r.spectatorSet(ents)
	}
	for _, c := range r.clients {
		if c.ended {
			continue
		}
		visible := r.specVis
		if c.player != 0 {
			visible = r.game.Visible(c.player)
		}
		r.publishTo(c, visible, ents)
		if r.finished && c.converged {
			r.end(c)
		}
	}
	r.stats.Tick = r.tick
}

// end sends c its MatchEnd and nothing after it.
func (r *Room) end(c *viewer) {
	e, _ := r.MatchEnd(c.id)
	start := len(r.arena)
	r.arena = AppendMatchEnd(r.arena, e)
	r.out = append(r.out, envelopeRec{to: c.id, reliable: true, start: start, end: len(r.arena)})
	c.ended = true
}

// EndAll sends its MatchEnd to every client that has not had one yet
// (those that did not acknowledge their whole view in time: the
// embedder's settle timeout). It does nothing before Finish.
func (r *Room) EndAll() {
	if !r.finished {
		return
	}
	for _, c := range r.clients {
		if !c.ended {
			r.end(c)
		}
	}
}

// Ended reports whether every client has had its MatchEnd.
func (r *Room) Ended() bool {
	for _, c := range r.clients {
		if !c.ended {
			return false
		}
	}
	return r.finished
}

// SetEndTiming sets the room's timing that spectators' MatchEnds carry
// (the 99th percentiles of the tick time and of its cost excluding the
// simulation): it depends on the whole map, so players' MatchEnds carry
// none.
func (r *Room) SetEndTiming(tickP99Us, costP99Us uint32) {
	r.endTickP99Us, r.endCostP99Us = tickP99Us, costP99Us
}

// updateFog has the game recompute every player's sight (a game may
// skip a player whose sight cannot have changed, unless
// Config.AlwaysRecomputeFog).
func (r *Room) updateFog() {
	recomputed, skipped := r.game.UpdateSight(r.cfg.AlwaysRecomputeFog)
	r.stats.FogRecomputes += uint64(recomputed)
	r.stats.FogSkips += uint64(skipped)
}

// spectatorSet lists what spectators see: every entity with
// FullMapSpectators, otherwise the union of the players' visible sets.
func (r *Room) spectatorSet(ents []protocol.EntityState) {
	r.specVis = r.specVis[:0]
	if r.cfg.FullMapSpectators {
		for i := range ents {
			r.specVis = append(r.specVis, ents[i].ID)
		}
		return
	}
	clear(r.union)
	for p := 1; p <= r.game.Players(); p++ {
		for _, id := range r.game.Visible(protocol.PlayerID(p)) {
			w := int(id / 64)
			for w >= len(r.union) {
				r.union = append(r.union, 0)
			}
			r.union[w] |= 1 << (id % 64)
		}
	}
	for w, word := range r.union {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			r.specVis = append(r.specVis, protocol.EntityID(w*64+b))
			word &= word - 1
		}
	}
}

// classifier ranks one client's pending deltas; the nearness grid is
// built only when the budget is saturated.
type classifier struct {
	r      *Room
	player protocol.PlayerID
	ents   []protocol.EntityState
	built  bool
}

// grid returns the nearness grid, built for this tick (a spectator needs
// none: every player's entity is near to it).
func (k *classifier) grid() *nearGrid {
	if !k.built && k.player != 0 {
		k.r.grid.build(k.r.game, k.ents, k.r.tick)
		k.built = true
	}
	return &k.r.grid
}

func (r *Room) publishTo(c *viewer, visible []protocol.EntityID, ents []protocol.EntityState) {
	c.expireOld(r.tick)
	c.view.diff(visible, ents, r.slots, r.tick, c.resendTicks())
	c.converged = len(c.view.pend) == 0 && c.view.inFlight == 0 && c.unacked() == 0
	c.stats.Pending = len(c.view.pend)
	if c.unacked() >= r.cfg.MaxUnackedParts {
		c.view.pend = c.view.pend[:0] // stalled: nothing new until it acknowledges
		c.stats.Stalled++
	}
	k := classifier{r: r, player: c.player, ents: ents}
	saturated := r.sel.plan(&c.view, ents, r.tick, &k)
	if saturated {
		c.stats.Saturated++
		r.stats.Saturated++
	}
	r.serialize(c, ents, saturated)
}

// serialize writes the planned deltas into StateUpdates (one empty
// StateUpdate when there is nothing to send, so the client sees the tick),
// records them for acknowledgement and resets the sent entities'
// priority.
func (r *Room) serialize(c *viewer, ents []protocol.EntityState, saturated bool) {
	v := &c.view
	order := r.sel.order
	start, count, firstItem := -1, 0, len(c.items)
	closePart := func() {
		if start < 0 {
			return
		}
		binary.LittleEndian.PutUint16(r.arena[start+11:], uint16(count))
		r.out = append(r.out, envelopeRec{to: c.id, start: start, end: len(r.arena)})
		c.stats.BytesSent += uint64(len(r.arena) - start)
		c.stats.StateUpdates++
		if count > 0 {
			id := PartID{Tick: r.tick, First: v.entries[c.hints[firstItem]].alias}
			c.parts = append(c.parts, sentPart{id: id, start: firstItem, end: len(c.items)})
		}
		start = -1
	}
	openPart := func() {
		closePart()
		start, count, firstItem = len(r.arena), 0, len(c.items)
		r.arena = AppendStateUpdateHeader(r.arena, r.tick, c.player, 0)
	}
	if len(order) == 0 {
		openPart()
		closePart()
		return
	}
	for _, idx := range order {
		p := &v.pend[idx]
		if start < 0 || len(r.arena)-start+int(p.size) > r.cfg.MaxMessageSize {
			openPart()
		}
		c.items = append(c.items, p.delta(v, ents))
		if cap(c.hints) < cap(c.items) {
			// Grown with items, so it allocates only when items does.
			c.hints = slices.Grow(c.hints, cap(c.items)-len(c.hints))
		}
		c.hints = append(c.hints, p.entry)
		d := &c.items[len(c.items)-1]
		id, target := d.Entity.ID, d.Entity.Target
		v.toWire(d, p.alias) // written under the client's names, kept under the simulation's
		if d.Kind == DeltaEnter {
			kind, mask := d.Kind, d.Mask
			d.Mask = 0
			r.arena = AppendDelta(r.arena, d)
			count++
			if mask != 0 {
				d.Kind, d.Mask = DeltaUpdate, mask
				r.arena = AppendDelta(r.arena, d)
				count++
			}
			d.Kind, d.Mask = kind, mask
			c.stats.Enters++
		} else {
			r.arena = AppendDelta(r.arena, d)
			count++
			if d.Kind == DeltaUpdate {
				c.stats.Updates++
			} else {
				c.stats.Leaves++
			}
		}
		d.Entity.ID, d.Entity.Target = id, target
		e := &v.entries[p.entry]
		if saturated && d.Kind != DeltaLeave {
			r.recordWait(p.tier, r.tick-e.lastSent)
		}
		e.accum, e.lastSent = 0, r.tick
		e.flight, e.flightTick = *d, r.tick
		e.enterOut = e.enterOut || d.Kind == DeltaEnter
	}
	closePart()
}

// toWire names d's entities as this client's wire does: the entity by its
// alias, and the entity it names (already filtered to one the client
// sees) by that one's.
func (v *view) toWire(d *Delta, alias protocol.EntityID) {
	d.Entity.ID = alias
	if d.Entity.Target != 0 {
		d.Entity.Target = v.names.lookup(d.Entity.Target)
	}
}
