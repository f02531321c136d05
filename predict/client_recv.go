package predict

import (
	"fmt"
	"time"
)

// Receive handles one message from the server. A message that fails to
// decode is refused with an error and changes nothing.
func (c *Client) Receive(now time.Duration, msg []byte) error {
	c.now = max(c.now, now)
	c.stats.BytesDown += uint64(len(msg))
	t, err := TypeOf(msg)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	switch t {
	case TypeHello:
		var h Hello
		if err := h.Parse(msg); err != nil {
			return err
		}
		if !c.hello {
			c.join(&h)
		}
		return nil
	case TypePong:
		var p Pong
		if err := p.Parse(msg); err != nil {
			return err
		}
		if !c.hello || !c.pinged(p.ClientTimeUs) {
			return fmt.Errorf("%w: pong for no recent ping", ErrMalformed)
		}
		c.clock.observe(c.now, time.Duration(p.ClientTimeUs)*time.Microsecond, p.ServerTick)
		return nil
	case TypeInputAck:
		var a InputAck
		if err := a.Parse(msg); err != nil {
			return err
		}
		if !c.hello {
			return ErrNotJoined
		}
		c.acknowledge(a.Sequence)
		if a.Clamped {
			c.stats.InputsClamped++
		}
		if a.Late {
			if c.now-c.lastLate > c.interval*4 {
				c.leadAdjust = min(c.leadAdjust+1, 8)
			}
			c.lastLate = c.now
		}
		return nil
	case TypeEvent:
		var m EventMessage
		if err := m.Parse(msg); err != nil {
			return err
		}
		if !c.hello {
			return ErrNotJoined
		}
		c.serverEvent(&m.Event, true)
		return nil
	case TypeSnapshot:
		if !c.hello {
			return ErrNotJoined
		}
		m := &c.scratch.snap
		if err := m.Parse(msg); err != nil {
			return err
		}
		return c.reconcile(m)
	}
	return fmt.Errorf("%w: unexpected %v from the server", ErrMalformed, t)
}

// join takes the room's parameters from its Hello: the tick rate (and so
// the game's rules, when the client builds its game), the snapshot
// interval, the baseline window and MaxAhead.
func (c *Client) join(h *Hello) {
	c.hello, c.player, c.tickRate = true, h.Player, int(h.TickRate)
	c.interval = time.Second / time.Duration(h.TickRate)
	c.snapEvery, c.maxAhead = uint64(h.SnapshotEvery), int(h.MaxAhead)
	c.baselines = make([]baseline, h.BaselineWindow)
	c.clock.interval = c.interval
	c.cfg = c.cfg.withDefaults(c.tickRate)
	c.nextPing = c.now
	c.smooth.dur = c.cfg.CorrectionSmoothing
	if c.newGame != nil {
		c.game = c.newGame(c.tickRate)
		c.core = newSimulationCore(c.game, Predictive, c.cfg.EffectMemory)
	}
}

// acknowledge measures input-to-ack latency of inputs up to seq.
func (c *Client) acknowledge(seq uint32) {
	if seq <= c.measured || seq > c.seq {
		return
	}
	for i := range c.pending {
		p := &c.pending[i]
		if p.in.Sequence > seq {
			break
		}
		if p.in.Sequence > c.measured {
			c.stats.InputToAck.Observe(float64(c.now-p.created) / float64(time.Millisecond))
			c.stats.InputsAcked++
		}
	}
	c.measured = seq
}

// provisional is a spawn the client predicted, waiting for the server's
// verdict.
type provisional struct {
	actionSeq uint32
	ackedAt   time.Duration // when the input carrying the action was acknowledged; 0 before
}

// fire hands an event's side effect to the game once. Predicted events
// come from the Predictive core (already deduplicated across replays);
// the server's are checked against what the prediction fired.
func (c *Client) fire(e Event, predicted bool) {
	if predicted && e.Kind == EventSpawn && e.Player == c.player && e.Entity < 0 {
		if _, ok := c.provisional[e.Entity]; !ok {
			c.provisional[e.Entity] = &provisional{actionSeq: e.ActionSeq}
			c.stats.ProvisionalSpawns++
		}
	}
	c.effects = append(c.effects, e)
	c.stats.EffectsFired++
}

// serverEvent handles an authoritative event, from an EventMessage or a
// snapshot, once.
func (c *Client) serverEvent(e *Event, reliable bool) {
	if !c.seen.add(e.ID, reliable) {
		return
	}
	if e.Player == c.player {
		// An action sequence the server has used is never reused: an
		// effect's identity stays unique.
		c.actSeq = max(c.actSeq, e.ActionSeq)
	}
	if e.Player == c.player && e.ActionSeq != 0 {
		switch e.Kind {
		case EventSpawn:
			c.resolveProvisional(e.ActionSeq, e.Entity)
		case EventRejected:
			c.resolveProvisional(e.ActionSeq, 0)
		}
	}
	if !c.core.Heard(e) {
		c.stats.EffectsDeduped++
		return
	}
	c.effects = append(c.effects, *e)
	c.stats.EffectsFired++
}

// resolveProvisional maps the provisional spawn of an action to id, or
// discards it when id is 0.
func (c *Client) resolveProvisional(actionSeq uint32, id EntityID) {
	for pid, p := range c.provisional {
		if p.actionSeq != actionSeq {
			continue
		}
		delete(c.provisional, pid)
		if id == 0 {
			c.stats.ProvisionalDiscarded++
			return
		}
		c.stats.ProvisionalMapped++
		c.mapped[pid] = id
		c.smooth.rename(pid, id)
		return
	}
}

// expireProvisional discards predicted spawns whose action the server
// acknowledged long enough ago without a spawn event.
func (c *Client) expireProvisional() {
	for pid, p := range c.provisional {
		if p.ackedAt == 0 {
			continue
		}
		if c.now-p.ackedAt > c.cfg.ProvisionalTimeout {
			delete(c.provisional, pid)
			c.stats.ProvisionalDiscarded++
		}
	}
	if len(c.mapped) > 1024 {
		clear(c.mapped)
	}
}

// eventSet remembers which event ids were handled. Events arrive in order
// on the reliable lane, so every id at or below the newest reliable one is
// known; ids seen early in snapshots are kept individually until the
// reliable lane passes them. An id too far ahead of the reliable lane is
// not taken from a snapshot at all (its reliable copy will come), so the
// set is bounded without ever forgetting an id it took.
type eventSet struct {
	reliable uint64
	early    map[uint64]struct{}
}

// earlyWindow bounds how far ahead of the reliable lane a snapshot's
// event may be taken.
const earlyWindow = 1024

// add reports whether id is new, and records it.
func (s *eventSet) add(id uint64, reliable bool) bool {
	if id <= s.reliable {
		return false
	}
	_, early := s.early[id]
	if reliable {
		s.reliable = id
		for k := range s.early {
			if k <= id {
				delete(s.early, k)
			}
		}
		return !early
	}
	if early || id-s.reliable > earlyWindow {
		return false
	}
	if s.early == nil {
		s.early = make(map[uint64]struct{})
	}
	s.early[id] = struct{}{}
	return true
}

// ProvisionalPending is the number of predicted spawns still waiting for
// the server's spawn or rejection.
func (c *Client) ProvisionalPending() int { return len(c.provisional) }

// pinged reports whether us is the time of one of the last pings, and
// forgets it so a duplicated pong counts once.
func (c *Client) pinged(us uint64) bool {
	const used = 1<<64 - 1
	for i, t := range c.pingSent[:min(c.pings, len(c.pingSent))] {
		if t == us && us != used {
			c.pingSent[i] = used
			return true
		}
	}
	return false
}
