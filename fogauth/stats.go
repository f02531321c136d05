package fogauth

import "github.com/tickwire/tickwire/protocol"

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
	// a saturated tick; Waits is the histogram of those waits.
	MaxWait [NumTiers]uint64
	Waits   [NumTiers][waitBuckets]uint32
}

func (s *Stats) recordWait(t Tier, w uint64) {
	s.MaxWait[t] = max(s.MaxWait[t], w)
	s.Waits[t][min(w, waitBuckets-1)]++
}

// WaitQuantile is the q-quantile (0..1) of tier t's waits in ticks, or 0
// without samples.
func (s *Stats) WaitQuantile(t Tier, q float64) uint64 {
	var n uint64
	for _, c := range s.Waits[t] {
		n += uint64(c)
	}
	if n == 0 {
		return 0
	}
	rank := uint64(q * float64(n-1))
	var seen uint64
	for w, c := range s.Waits[t] {
		seen += uint64(c)
		if seen > rank {
			return uint64(w)
		}
	}
	return waitBuckets - 1
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
}

// Stats returns the room's counters. The histogram is copied; call it
// sparingly.
func (r *Room) Stats() Stats { return r.stats }

// ClientStats returns a client's counters.
func (r *Room) ClientStats(id ClientID) (ClientStats, bool) {
	if c := r.client(id); c != nil {
		return c.stats, true
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
	return r.fog.VisibleEntities(c.player)
}
