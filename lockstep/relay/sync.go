package relay

import (
	"fmt"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// Sync check frequencies of the seed design, in ticks.
const (
	syncEveryEarly  = 30  // first minute of the match, and after a boost
	syncEveryNormal = 120 // standard play
	syncEveryLate   = 300 // late game
	syncEarlyPeriod = time.Minute
	syncPending     = 8 // sync checks awaiting reports at once
)

// syncState collects state hashes for the ticks the relay asked about.
type syncState struct {
	entries    [syncPending]syncEntry
	nextSlot   int
	boostUntil time.Duration
}

type syncEntry struct {
	tick   uint64
	open   bool
	hashes []uint64
	have   []bool
}

func newSyncState(players int) syncState {
	var s syncState
	for i := range s.entries {
		s.entries[i].hashes = make([]uint64, players)
		s.entries[i].have = make([]bool, players)
	}
	return s
}

// due reports whether tick k asks for a sync hash: every 30 ticks in the
// first minute and for a minute after BoostSync, every 300 once
// LateGameAfter has passed, every 120 otherwise.
func (s *syncState) due(c *Core, k uint64) bool {
	elapsed := time.Duration(k) * c.timeline.interval
	every := uint64(syncEveryNormal)
	switch {
	case elapsed < syncEarlyPeriod || c.now < s.boostUntil:
		every = syncEveryEarly
	case elapsed >= c.cfg.LateGameAfter:
		every = syncEveryLate
	}
	return k%every == 0
}

// open starts collecting hashes for tick k, replacing the oldest check.
func (s *syncState) open(k uint64) {
	e := &s.entries[s.nextSlot]
	s.nextSlot = (s.nextSlot + 1) % syncPending
	e.tick, e.open = k, true
	clear(e.have)
}

// BoostSync raises the sync check frequency to every 30 ticks for the next
// minute, as after a reconnection.
func (c *Core) BoostSync(now time.Duration) {
	c.advance(now)
	c.sync.boostUntil = c.now + syncEarlyPeriod
}

func (c *Core) onSyncHash(p *player, m *msg.SyncHash) error {
	if c.phase != PhasePlaying {
		return fmt.Errorf("%w: SyncHash while %v", ErrPhase, c.phase)
	}
	for i := range c.sync.entries {
		e := &c.sync.entries[i]
		if !e.open || e.tick != m.Tick {
			continue
		}
		if e.have[p.index] {
			return fmt.Errorf("%w: sync hash for tick %d", ErrDuplicate, m.Tick)
		}
		e.hashes[p.index], e.have[p.index] = m.Hash, true
		c.compare(e)
		return nil
	}
	return fmt.Errorf("%w: no sync check pending for tick %d", ErrTick, m.Tick)
}

// recheck compares checks that a player's departure may have completed.
func (s *syncState) recheck(c *Core) {
	for i := range s.entries {
		if s.entries[i].open {
			c.compare(&s.entries[i])
		}
	}
}

// compare closes a check once every active player has reported, and
// broadcasts DesyncDetected if the hashes differ.
func (c *Core) compare(e *syncEntry) {
	var first uint64
	n, agree, complete := 0, true, true
	c.active(func(p *player) {
		if !e.have[p.index] {
			complete = false
			return
		}
		if n == 0 {
			first = e.hashes[p.index]
		} else if e.hashes[p.index] != first {
			agree = false
		}
		n++
	})
	if !complete || n == 0 {
		return
	}
	e.open = false
	if agree {
		c.emit(SyncAgreed{Tick: e.tick, Hash: first})
		return
	}
	ev := Desync{Tick: e.tick}
	c.active(func(p *player) {
		ev.Hashes = append(ev.Hashes, PlayerHash{Player: p.state.ID, Hash: e.hashes[p.index]})
	})
	c.broadcast(&msg.DesyncDetected{Tick: e.tick})
	c.emit(ev)
	c.startWalk(e)
}
