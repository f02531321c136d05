package predict

import (
	"bytes"
	"fmt"
	"math"
)

// reconcile applies an authoritative snapshot:
//
//  1. a snapshot at or before the anchor is stale and ignored;
//  2. a delta is rebuilt on the baseline it names (dropped if that
//     baseline is no longer held), and the result kept as a baseline;
//  3. the authoritative record of the client's entity is compared with
//     the prediction of the same tick (the parity check);
//  4. the predicted state is replaced by the anchor and the inputs the
//     server has not applied are replayed, each at its tick, up to the
//     predicted tick;
//  5. if the present changed, that is a correction: measured, explained,
//     and either snapped (above HardSnapThreshold) or blended into the view
//     over CorrectionSmoothing.
func (c *Client) reconcile(m *SnapshotMessage) error {
	t := m.ServerTick
	if t <= c.anchorTick {
		c.stats.SnapsStale++
		return nil
	}
	snap, recs, err := c.rebuild(m)
	if err != nil {
		return err
	}
	for i := range m.Events {
		c.serverEvent(&m.Events[i], false)
	}
	acked := c.acked
	for _, a := range m.Acked {
		if a.Player == c.player {
			acked = max(acked, a.Sequence)
		}
	}
	c.acknowledge(acked)

	own, _ := c.game.PlayerEntity(c.player)
	before, hadBefore := c.game.View(own)
	beforeRec := append(c.scratch.rec[:0], c.history[c.predTick%uint64(len(c.history))].data...)
	predicted := c.history[t%uint64(len(c.history))]

	prevAnchor := c.anchorTick
	if err := c.core.Restore(snap); err != nil {
		c.refuseSnapshot(t)
		return err
	}
	if c.game.Tick() != t {
		// The snapshot's state is not of the tick it claims: the game
		// state is now unusable, so wait for the next snapshot (a full
		// one) and adopt it.
		c.refuseSnapshot(t)
		c.anchored, c.predTick = false, c.anchorTick
		return fmt.Errorf("%w: snapshot of tick %d holds the state of tick %d", ErrMalformed, t, c.game.Tick())
	}
	c.anchorTick, c.acked = t, acked
	c.interp.push(t, c.game, c.player)
	c.anchorViews = c.game.Entities(c.anchorViews[:0])
	own, _ = c.game.PlayerEntity(c.player)
	if c.anchored && predicted.tick == t {
		if auth := findRecord(recs, own); auth != nil {
			c.stats.ParityChecks++
			if !bytes.Equal(auth, predicted.data) {
				c.stats.ParityFails++
			}
		}
	}
	c.dropAcked(acked)
	c.core.Settle(t, c.seen.reliable, c.player, c.firstPendingAction())
	c.stats.Snapshots++
	if !c.anchored || t >= c.predTick || c.predTick-t >= uint64(len(c.history)) {
		// Nothing predicted beyond the anchor (or more than the client
		// keeps a record of): adopt it.
		c.anchored = true
		c.predTick = t
		c.pending = c.pending[:0]
		c.unsent = 0
		h := &c.history[t%uint64(len(c.history))]
		h.tick = t
		h.data, _ = c.game.AppendRecord(h.data[:0], own)
		return nil
	}
	oldInteracted := c.predInteracted
	depth, late := c.replay(t)
	c.stats.ReplayDepth.Observe(float64(depth))
	cause := c.explain(m, prevAnchor, late > 0, oldInteracted)

	after := c.history[c.predTick%uint64(len(c.history))].data
	if bytes.Equal(beforeRec, after) {
		return nil
	}
	c.stats.Corrections++
	c.stats.ByCause[cause]++
	now, ok := c.game.View(own)
	if !ok || !hadBefore {
		return nil
	}
	dx, dy, dz := before.Pos[0]-now.Pos[0], before.Pos[1]-now.Pos[1], before.Pos[2]-now.Pos[2]
	e := math.Sqrt(dx*dx + dy*dy + dz*dz)
	c.stats.CorrectionError.Observe(e)
	if e > c.cfg.HardSnapThreshold {
		c.stats.HardSnaps++
		c.smooth.snap(own)
	} else {
		c.smooth.add(own, c.now, [3]float64{dx, dy, dz})
	}
	return nil
}

// explain names the cause of a correction found by the snapshot m of
// tick t, the previous anchor being prev. The present the client showed
// was predicted from prev; the one it shows now is replayed from t. They
// can only differ by what happened after prev, so only a cause in that
// window explains it, never one older:
//
//   - an input of the client's applied late, or dropped as late, at a tick
//     in (prev, t] (the snapshot's LateTick), or one the replay has just
//     merged late;
//   - an input the server clamped to MaxAhead, applied in (prev, t];
//   - another player (or the world) acting on the client's entity: in the
//     authoritative world in (prev, t] (InteractedTick), in the old
//     prediction after prev, or in the replay after t.
func (c *Client) explain(m *SnapshotMessage, prev uint64, lateReplayed bool, oldInteracted uint64) Cause {
	switch {
	case lateReplayed || m.LateTick > prev:
		return CauseLateInput
	case m.ClampedTick > prev:
		return CauseClampedInput
	case m.InteractedTick > prev || oldInteracted > prev || c.predInteracted > m.ServerTick:
		return CauseInteraction
	}
	return CauseUnexplained
}

// refuseSnapshot forgets the baseline a refused snapshot of tick t left
// and asks the server for a full snapshot.
func (c *Client) refuseSnapshot(t uint64) {
	if b := c.baselineSlot(t); b.tick == t {
		b.tick = 0
	}
	c.ackedSnap = 0
}

// baselineSlot is where the snapshot of tick t is kept: the ring is
// indexed by snapshot number, as the server's is, so the client holds
// every baseline the server may still use whatever the interval.
func (c *Client) baselineSlot(t uint64) *baseline {
	return &c.baselines[(t/c.snapEvery)%uint64(len(c.baselines))]
}

// rebuild returns the full snapshot m stands for, keeping it as a
// baseline. A delta against a baseline the client does not hold (it lost
// that snapshot's rebuild, or never had it) is not silently dropped: the
// client acknowledges no snapshot, which asks the server for a full one.
func (c *Client) rebuild(m *SnapshotMessage) ([]byte, []Record, error) {
	b := c.baselineSlot(m.ServerTick)
	var err error
	if m.BaselineTick == 0 {
		b.snap = c.game.Assemble(b.snap[:0], m.Header, m.Records)
	} else {
		base := c.baselineSlot(m.BaselineTick)
		if base.tick != m.BaselineTick || base == b {
			c.stats.SnapsNoBase++
			c.ackedSnap = 0
			return nil, nil, ErrNoBaseline
		}
		c.scratch.recs, c.scratch.patch, err = applyDelta(base.recs, m.Removed, m.Records, c.scratch.recs[:0], c.scratch.patch)
		if err != nil {
			return nil, nil, err
		}
		c.scratch.asm = c.game.Assemble(c.scratch.asm[:0], m.Header, c.scratch.recs)
		b.snap, c.scratch.asm = c.scratch.asm, b.snap
	}
	_, b.recs, err = c.game.Split(b.snap, b.recs[:0])
	if err != nil {
		b.tick = 0
		return nil, nil, err
	}
	b.tick = m.ServerTick
	c.ackedSnap = m.ServerTick
	return b.snap, b.recs, nil
}

func findRecord(recs []Record, id EntityID) []byte {
	lo, hi := 0, len(recs)
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case recs[mid].ID == id:
			return recs[mid].Data
		case recs[mid].ID < id:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return nil
}

// firstPendingAction is the sequence of the first action in an input the
// server has not confirmed, 0 if there is none.
func (c *Client) firstPendingAction() uint32 {
	for _, p := range c.pending {
		if len(p.in.Actions) > 0 {
			return p.in.Actions[0].Sequence
		}
	}
	return 0
}

// dropAcked forgets the inputs the anchor includes and starts the
// provisional-spawn timeout of their actions.
func (c *Client) dropAcked(acked uint32) {
	n := 0
	for n < len(c.pending) && c.pending[n].in.Sequence <= acked {
		for _, a := range c.pending[n].in.Actions {
			for _, p := range c.provisional {
				if p.actionSeq == a.Sequence && p.ackedAt == 0 {
					p.ackedAt = max(c.now, 1)
				}
			}
		}
		n++
	}
	c.unsent = min(c.unsent, len(c.pending)-n)
	c.pending = append(c.pending[:0], c.pending[n:]...)
}

// replay re-simulates from the anchor at tick t to the predicted tick,
// each pending input at the tick it was predicted for, and returns the
// number of inputs replayed and of late ones among them. Inputs meant
// for a tick the anchor already includes, but which the server has not
// applied, are late: they are merged into the input of tick t+1, as the
// server will apply them.
func (c *Client) replay(t uint64) (depth, late int) {
	end := c.predTick
	i := 0
	for i < len(c.pending) && c.pending[i].in.ClientTick <= t+1 {
		if c.pending[i].in.ClientTick <= t {
			late++
		}
		i++
	}
	if i > 0 {
		in := mergeDue(i, func(k int) *Input { return &c.pending[k].in })
		c.step(&in)
		depth = i
	} else {
		c.step(nil)
	}
	for tick := t + 2; tick <= end; tick++ {
		if i < len(c.pending) && c.pending[i].in.ClientTick == tick {
			c.step(&c.pending[i].in)
			depth++
			i++
			continue
		}
		c.step(nil)
	}
	return depth, late
}
