package statesync

import "time"

// quorum is the seed's network-partition detector: with fewer ACTIVE
// clients than QuorumPct percent of the peak for longer than QuorumGrace,
// the room turns read-only (clients simulate, nobody sends deltas, no
// state is assembled) so that the two sides of a split cannot both write;
// it leaves read-only mode as soon as the quorum is back.
//
// The peak is the room's size before a split, not its all-time record: a
// graceful leave lowers it at once (a split is an abrupt loss of many at
// once, not clients saying goodbye), and while fewer are ACTIVE it decays
// by one every QuorumDecay.
type quorum struct {
	peak       int
	lastQuorum time.Duration
	lastDecay  time.Duration
	readOnly   bool
}

// left lowers the peak for a graceful leave.
func (q *quorum) left() {
	if q.peak > 0 {
		q.peak--
	}
}

func (q *quorum) update(s *Server, active int) {
	switch {
	case active >= q.peak:
		q.peak, q.lastDecay = active, s.now
	case s.now-q.lastDecay >= s.cfg.QuorumDecay:
		q.peak--
		q.lastDecay = s.now
	}
	ok := q.peak == 0 || active*100 >= q.peak*s.cfg.QuorumPct
	if ok {
		q.lastQuorum = s.now
	}
	switch {
	case !ok && !q.readOnly && s.now-q.lastQuorum > s.cfg.QuorumGrace:
		q.readOnly = true
		s.emit(Event{Kind: EventReadOnly, Frame: s.next, On: true, Count: active, Voters: q.peak})
	case ok && q.readOnly:
		q.readOnly = false
		s.emit(Event{Kind: EventReadOnly, Frame: s.next, On: false, Count: active, Voters: q.peak})
	}
}

// churn counts joins and leaves over the last five seconds, in 250 ms
// buckets, for the seed's adaptive redundancy.
type churn struct {
	buckets [20]struct {
		slot  int64
		count int
	}
}

const churnBucket = 250 * time.Millisecond

func (c *churn) add(now time.Duration) {
	slot := int64(now / churnBucket)
	b := &c.buckets[slot%int64(len(c.buckets))]
	if b.slot != slot {
		b.slot, b.count = slot, 0
	}
	b.count++
}

func (c *churn) recent(now time.Duration) int {
	slot := int64(now / churnBucket)
	n := 0
	for _, b := range c.buckets {
		if b.slot > slot-int64(len(c.buckets)) && b.slot <= slot {
			n += b.count
		}
	}
	return n
}

// Redundancy bounds of the seed.
const (
	BaseRedundancy = 3
	MaxRedundancy  = 5
)

// redundancy is how many candidates each partition has: 3, or 5 when
// more than 10% of the room joined or left in the last five seconds.
func (c *churn) redundancy(now time.Duration, clients int) int {
	if clients > 0 && c.recent(now)*10 > clients {
		return MaxRedundancy
	}
	return BaseRedundancy
}
