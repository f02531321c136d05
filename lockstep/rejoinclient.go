package lockstep

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// rejoinState is the client's part of a snapshot transfer: as the
// recipient (a rejoining player or an observer) and as a donor.
type rejoinState struct {
	active     bool // a transfer to this client is under way, or its catch-up
	observer   bool
	tick       uint64 // the snapshot's tick (RejoinStart)
	chunks     [][]byte
	total      int
	agreed     Agreed
	haveHash   bool
	haveDigest bool
	offered    bool // the assembled snapshot went to the game loop
	loaded     bool
	donate     []uint64 // ticks this client was asked to donate, oldest first
	witness    []uint64 // ticks this client was asked to digest, oldest first
}

// startRejoin readies the core for a transfer to it: frames are kept
// from the first that arrives, handed out only once a snapshot is
// loaded. A rejoining player keeps its clock estimate and seed.
func (c *clientCore) startRejoin(observer bool) {
	st := &c.st
	st.rejoin = rejoinState{active: true, observer: observer}
	st.status = StatusAuthorized
	st.queue, st.pending, st.syncWanted = nil, nil, nil
	st.acked, st.echoes = false, echoRing{}
	st.err = nil
}

// onRejoinStart opens a transfer attempt: the match's timing and seed,
// and the tick whose snapshot follows.
func (c *clientCore) onRejoinStart(m *msg.RejoinStart, now time.Duration) {
	st := &c.st
	if !st.rejoin.active {
		c.fail(fmt.Errorf("%w: RejoinStart without a rejoin", ErrProtocol))
		return
	}
	if !st.seeded {
		st.interval = time.Duration(m.TickIntervalUs) * time.Microsecond
		st.deadline = time.Duration(m.DeadlineUs) * time.Microsecond
		st.seed, st.seeded = m.Seed, true
		st.start = time.Duration(m.StartUs) * time.Microsecond
		st.clock.begin(st.start, st.interval, st.deadline, st.offset)
		st.nextMetrics = now + c.cfg.MetricsInterval
	}
	st.diag.RunAhead = int(m.RunAhead)
	r := &st.rejoin
	r.tick, r.chunks, r.total, r.haveHash, r.haveDigest, r.offered = m.SnapshotTick, r.chunks[:0], 0, false, false, false
	st.status = StatusDownloading
}

// onChunk adds a chunk of the current attempt's snapshot.
func (c *clientCore) onChunk(m *msg.SnapshotChunk) {
	r := &c.st.rejoin
	if !r.active || r.loaded || m.Tick != r.tick || int(m.Index) != len(r.chunks) || (r.total != 0 && int(m.Total) != r.total) {
		return // a stale attempt's, or out of order: the verdict will say
	}
	r.total = int(m.Total)
	r.chunks = append(r.chunks, m.Data)
}

// snapshot returns the assembled snapshot and what was agreed of it once
// all are in, once per attempt.
func (c *clientCore) snapshot() (tick uint64, data []byte, agreed Agreed, ok bool) {
	r := &c.st.rejoin
	if !r.active || r.loaded || r.offered || !r.complete() {
		return 0, nil, Agreed{}, false
	}
	r.offered = true
	return r.tick, slices.Concat(r.chunks...), r.agreed, true
}

// complete reports whether the snapshot's chunks, hash and digest are in.
func (r *rejoinState) complete() bool {
	return r.haveHash && r.haveDigest && r.total > 0 && len(r.chunks) == r.total
}

// checked takes the game loop's verdict on the snapshot of tick: loaded
// (it matched the agreed hash) starts the catch-up from tick+1; rejected
// waits for the next donor.
func (c *clientCore) checked(tick uint64, loaded bool) {
	st := &c.st
	r := &st.rejoin
	if !r.active || tick != r.tick || r.loaded {
		return
	}
	c.send(&msg.SnapshotVerdict{Tick: tick, OK: loaded})
	if !loaded {
		r.chunks, r.total, r.haveHash, r.haveDigest, r.offered = r.chunks[:0], 0, false, false, false
		return
	}
	r.loaded, r.chunks = true, nil
	i := 0
	for i < len(st.queue) && st.queue[i].ticks.Tick <= tick {
		i++
	}
	st.queue = slices.Delete(st.queue, 0, i)
	if len(st.queue) > 0 && st.queue[0].ticks.Tick != tick+1 {
		c.fail(fmt.Errorf("%w: frames resume at %d after a snapshot of %d", ErrProtocol, st.queue[0].ticks.Tick, tick))
		return
	}
	st.diag.Tick = tick
	st.status = StatusCatchingUp
}

// caughtUp ends the catch-up once every frame received is handed out: a
// player reports CaughtUp and submits from the current window on; an
// observer just plays on.
func (c *clientCore) caughtUp(now time.Duration) {
	st := &c.st
	r := &st.rejoin
	if st.status != StatusCatchingUp || len(st.queue) > 0 {
		return
	}
	r.active = false
	st.status = StatusPlaying
	if r.observer {
		return
	}
	c.send(&msg.CaughtUp{Tick: st.diag.Tick})
	rnow := now + st.offset
	st.nextSend = st.windowOf(rnow+st.submitOffset) + 1
}

// frameAccepted reports whether frame f follows the ones before: during
// a transfer the first frame sets the sequence.
func (st *clientState) frameAccepted(f *msg.TickFrame) bool {
	if st.rejoin.active && !st.rejoin.loaded {
		if len(st.queue) == 0 {
			st.nextFrame = f.Tick
		}
		return f.Tick == st.nextFrame
	}
	return st.seeded && f.Tick == st.nextFrame
}

// ready reports whether the game loop has something to do: a frame to
// poll, or a snapshot to load.
func (st *clientState) ready() bool {
	r := &st.rejoin
	if st.holding() {
		return !r.offered && r.complete()
	}
	return len(st.queue) > 0
}

// holding reports whether polled frames wait for a snapshot.
func (st *clientState) holding() bool {
	return st.rejoin.active && !st.rejoin.loaded
}

// submitting reports whether the client submits orders: a player in
// play, not while it rejoins, never an observer.
func (st *clientState) submitting() bool {
	return !st.rejoin.observer && (st.status == StatusPlaying || st.status == StatusDesynced)
}

// snapshotWanted reports whether a donor or witness request names tick
// (and forgets any older one).
func (st *clientState) snapshotWanted(tick uint64) bool {
	r := &st.rejoin
	r.donate, r.witness = dropBefore(r.donate, tick), dropBefore(r.witness, tick)
	return len(r.donate) > 0 && r.donate[0] == tick || len(r.witness) > 0 && r.witness[0] == tick
}

// dropBefore removes the ticks before tick from ticks (ascending).
func dropBefore(ticks []uint64, tick uint64) []uint64 {
	i := 0
	for i < len(ticks) && ticks[i] < tick {
		i++
	}
	return ticks[i:]
}

// donate sends the snapshot of tick in chunks if a donor request names
// it, and its digest if a witness request does.
func (c *clientCore) donate(tick uint64, data []byte) {
	r := &c.st.rejoin
	if len(r.witness) > 0 && r.witness[0] == tick {
		r.witness = r.witness[1:]
		c.send(&msg.SnapshotDigest{Tick: tick, Digest: sha256.Sum256(data)})
	}
	if len(r.donate) == 0 || r.donate[0] != tick {
		return
	}
	r.donate = r.donate[1:]
	total := (len(data) + msg.MaxChunkBytes - 1) / msg.MaxChunkBytes
	if total == 0 || total > msg.MaxSnapshotChunks {
		c.log.Warn("lockstep: snapshot too large to donate", "bytes", len(data))
		return
	}
	for i := range total {
		part := data[i*msg.MaxChunkBytes : min((i+1)*msg.MaxChunkBytes, len(data))]
		c.send(&msg.SnapshotChunk{Tick: tick, Index: uint16(i), Total: uint16(total), Data: part})
	}
}

// handleRejoin processes the rejoin messages; false if m is not one.
func (c *clientCore) handleRejoin(in msg.Message, now time.Duration) bool {
	st := &c.st
	switch m := in.(type) {
	case *msg.RejoinStart:
		c.onRejoinStart(m, now)
	case *msg.SnapshotChunk:
		c.onChunk(m)
	case *msg.SnapshotHash:
		if r := &st.rejoin; r.active && m.Tick == r.tick {
			r.agreed.Hash, r.haveHash = m.Hash, true
		}
	case *msg.SnapshotDigest:
		if r := &st.rejoin; r.active && m.Tick == r.tick {
			r.agreed.Digest, r.haveDigest = m.Digest, true
		}
	case *msg.SnapshotRequest:
		if len(st.rejoin.donate) < 8 {
			st.rejoin.donate = append(st.rejoin.donate, m.Tick)
		}
	case *msg.DigestRequest:
		if len(st.rejoin.witness) < 8 {
			st.rejoin.witness = append(st.rejoin.witness, m.Tick)
		}
	case *msg.RejoinKeepalive:
	default:
		return false
	}
	return true
}
