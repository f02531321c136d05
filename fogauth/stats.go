package fogauth

import (
	"cmp"
	"slices"

	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/protocol"
)

// waitBuckets bounds the wait histogram; longer waits share the last
// bucket.
const waitBuckets = 1024

// Stats are a room's counters.
type Stats struct {
	Tick          uint64 // tick of the latest StateUpdates
	SimTicks      uint64 // simulation ticks run
	SkippedTicks  uint64 // ticks skipped because a tick overran
	FogRecomputes uint64 // player fog updates computed
	FogSkips      uint64 // player fog updates skipped: sight sources unchanged
	Saturated     uint64 // client-ticks whose deltas exceeded the budget
	Rejections    uint64 // orders rejected

	// MaxWait is, per tier, the longest an entity's delta waited (ticks
	// since the entity was last sent or up to date) before it was sent in
	// a saturated tick (see Room.WaitQuantile for the distribution).
	MaxWait [NumTiers]uint64
}

// waits is the histogram of the waits of Stats.MaxWait.
type waits [NumTiers][waitBuckets]uint32

func (r *Room) recordWait(t Tier, w uint64) {
	r.stats.MaxWait[t] = max(r.stats.MaxWait[t], w)
	r.waits[t][min(w, waitBuckets-1)]++
}

// WaitQuantile is the nearest-rank q-quantile (0..1) of tier t's waits
// in saturated ticks, or 0 without samples.
func (r *Room) WaitQuantile(t Tier, q float64) uint64 {
	w, _ := metrics.QuantileBucket(r.waits[t][:], q)
	return uint64(w)
}

// ClientStats are one client's counters.
type ClientStats struct {
	BytesSent    uint64 // StateUpdate bytes
	StateUpdates uint64
	Enters       uint64
	Updates      uint64
	Leaves       uint64
	Acked        uint64 // StateUpdates acknowledged
	Expired      uint64 // StateUpdates never acknowledged: their content was sent again
	Saturated    uint64 // ticks whose deltas exceeded the budget
	Stalled      uint64 // ticks without new deltas: too many unacknowledged
	Pending      int    // deltas pending at the last tick
	// OrdersApplied counts the client's orders the simulation applied;
	// every other order it sent was counted in a Rejection.
	OrdersApplied uint64
	// MaxStaleTicks is the longest a visible entity's change waited, from
	// the tick it happened to the tick the StateUpdate that delivered it
	// (the one acknowledged) was sent: how long the client's copy was
	// behind the truth, network transit excluded.
	MaxStaleTicks uint64
}

// Stats returns the room's counters.
func (r *Room) Stats() Stats { return r.stats }

// ClientStats returns a client's counters.
func (r *Room) ClientStats(id ClientID) (ClientStats, bool) {
	if c := r.client(id); c != nil {
		st := c.stats
		st.MaxStaleTicks = c.view.maxStale
		return st, true
	}
	return ClientStats{}, false
}

// Converged reports whether, at the last tick, the client had acknowledged
// exactly the server's truth for everything it sees: no delta pending or
// in flight, and no StateUpdate awaiting acknowledgement.
func (r *Room) Converged(id ClientID) bool {
	c := r.client(id)
	return c != nil && c.converged
}

// Visible returns what client id sees at the last tick: its player's
// visible entities, or the spectators' set.
func (r *Room) Visible(id ClientID) []protocol.EntityID {
	c := r.client(id)
	switch {
	case c == nil:
		return nil
	case c.player == 0:
		return r.specVis
	}
	return r.game.Visible(c.player)
}

// View appends to dst the server's truth of what client id sees, as its
// wire names it: ids are the client's aliases, a target the client does
// not see is none; in ascending (alias) ID order, as the client's
// PartialWorld holds it. A client's alias is given when an entity is
// first listed for it, so View names only what the last Publish listed.
func (r *Room) View(id ClientID, dst []protocol.EntityState) []protocol.EntityState {
	c := r.client(id)
	if c == nil {
		return dst
	}
	vis := r.Visible(id)
	start := len(dst)
	for _, eid := range vis {
		e, ok := r.entity(eid)
		al := c.view.names.lookup(eid)
		if !ok || al == 0 {
			continue
		}
		e.ID = al
		if t := e.Target; t != 0 {
			e.Target = 0
			if _, seen := slices.BinarySearch(vis, t); seen {
				e.Target = c.view.names.lookup(t)
			}
		}
		dst = append(dst, e)
	}
	slices.SortFunc(dst[start:], func(a, b protocol.EntityState) int { return cmp.Compare(a.ID, b.ID) })
	return dst
}

// Alias is the id client id knows the entity simID by, or 0 if it was
// never listed for it.
func (r *Room) Alias(id ClientID, simID protocol.EntityID) protocol.EntityID {
	if c := r.client(id); c != nil {
		return c.view.names.lookup(simID)
	}
	return 0
}

// SimID is the simulation id of the entity client id knows as alias, or
// 0 for an alias it was never given.
func (r *Room) SimID(id ClientID, alias protocol.EntityID) protocol.EntityID {
	if c := r.client(id); c != nil {
		return c.view.names.sim(alias)
	}
	return 0
}

// MatchEnd is the MatchEnd for client id: the last tick simulated (the
// current one before Finish), its view (see View) and its MaxStaleTicks;
// a spectator's carries the room's timing (SetEndTiming), a player's none
// (it depends on the whole map).
func (r *Room) MatchEnd(id ClientID) (MatchEnd, bool) {
	st, ok := r.ClientStats(id)
	if !ok {
		return MatchEnd{}, false
	}
	tick := r.tick
	if r.finished {
		tick = r.lastTick
	}
	r.endView = r.View(id, r.endView[:0])
	e := MatchEnd{Tick: tick, Entities: uint32(len(r.endView)), ViewHash: ViewHash(r.endView),
		MaxStaleTicks: uint32(min(st.MaxStaleTicks, 1<<32-1))}
	if c := r.client(id); c.player == 0 {
		e.TickP99Us, e.CostP99Us = r.endTickP99Us, r.endCostP99Us
	}
	return e, true
}
