package statesync

import (
	"errors"
	"slices"
	"time"
)

// ErrStranger: a partition from a client that was neither its primary
// nor asked for it.
var ErrStranger = errors.New("statesync: partition from a client not assigned it")

// ErrThrottled: a HELLO or a SyncRequest sooner than the room allows.
var ErrThrottled = errors.New("statesync: too soon")

// ErrRemoved: a join of a client removed for an offence less than
// DesyncWindow ago.
var ErrRemoved = errors.New("statesync: client removed for an offence")

// Offence is evidence that a client broke the protocol: something an
// honest client never does.
type Offence uint8

// Offences.
const (
	// OffenceStranger: a partition it was not assigned nor asked for.
	OffenceStranger Offence = iota + 1
	// OffenceBadPartition: a partition it was assigned that failed the
	// checks (malformed, oversized, of another partition, or claiming a
	// state it did not vote for).
	OffenceBadPartition
	// OffenceBadState: entities for a recovery that do not match its own
	// Merkle leaves.
	OffenceBadState
	// OffenceFlood: a HELLO or SyncRequest sooner than allowed.
	OffenceFlood
	// OffenceDesyncs: desynced more often than MaxDesyncs in DesyncWindow;
	// removed from the room.
	OffenceDesyncs
	offenceKinds
)

func (o Offence) String() string {
	return [...]string{"", "stranger partition", "bad partition", "bad state data", "flood", "repeated desyncs"}[o]
}

// OffenceCounts counts offences per kind; index 0 is unused.
type OffenceCounts [offenceKinds]uint64

// offend records an offence of c. Its reliability score drops to zero:
// a client with evidence against it is hardly ever drawn as a sender
// again.
func (s *Server) offend(c *client, o Offence) {
	c.offences++
	s.rel.Distrust(c.id)
	s.stats.Offences[o]++
	s.emit(Event{Kind: EventOffence, Client: c.id, Frame: s.next, Offence: o})
}

// Offences is how many offences a client in the room committed.
func (s *Server) Offences(id uint32) uint32 {
	if c := s.clients[id]; c != nil {
		return c.offences
	}
	return 0
}

// suspectFor is how long a client whose data failed verification is left
// out of recovery and late-join sourcing.
const suspectFor = 30 * time.Second

// distrust leaves a client out of state sourcing for suspectFor. No score
// changes: a failed full state does not say which source lied.
func (s *Server) distrust(id uint32) {
	if s.suspects == nil {
		s.suspects = make(map[uint32]time.Duration)
	}
	s.suspects[id] = s.now + suspectFor
}

func (s *Server) suspect(id uint32) bool {
	until, ok := s.suspects[id]
	return ok && s.now < until
}

func (s *Server) pruneSuspects() {
	for id, until := range s.suspects {
		if s.now >= until || s.clients[id] == nil {
			delete(s.suspects, id)
		}
	}
}

// countDesync records a desync of c and removes c when it desynced more
// than MaxDesyncs times within DesyncWindow. It reports whether c is gone.
func (s *Server) countDesync(c *client) bool {
	if s.cfg.MaxDesyncs < 0 {
		return false
	}
	c.desyncs = slices.DeleteFunc(append(c.desyncs, s.now), func(at time.Duration) bool {
		return s.now-at > s.cfg.DesyncWindow
	})
	if len(c.desyncs) <= s.cfg.MaxDesyncs {
		return false
	}
	s.offend(c, OffenceDesyncs)
	s.stats.Removed++
	s.emit(Event{Kind: EventRemoved, Client: c.id, Frame: s.next, Offence: OffenceDesyncs})
	s.drop(c)
	if s.removed == nil {
		s.removed = make(map[uint32]time.Duration)
	}
	s.removed[c.id] = s.now + s.cfg.DesyncWindow
	return true
}

// barred reports whether id was removed less than DesyncWindow ago, and
// forgets removals older than that.
func (s *Server) barred(id uint32) bool {
	for x, until := range s.removed {
		if s.now >= until {
			delete(s.removed, x)
		}
	}
	_, ok := s.removed[id]
	return ok
}
