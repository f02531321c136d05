package relay

import (
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// frameLogSize is how many recent frames the relay remembers for liveness
// echoes and RTT samples (about two seconds at 30 ticks per second).
const frameLogSize = 64

// frameLog remembers the token and send time of recent frames, and
// whether (nearly) every player was late for them.
type frameLog struct {
	entries [frameLogSize]struct {
		tick   uint64
		token  uint32
		at     time.Duration
		shared bool
		valid  bool
	}
}

func (l *frameLog) record(tick uint64, token uint32, at time.Duration, shared bool) {
	e := &l.entries[tick%frameLogSize]
	e.tick, e.token, e.at, e.shared, e.valid = tick, token, at, shared, true
}

// sentAt returns when frame tick was sent and whether its lateness was
// shared (see sharedLateness), if it is remembered.
func (l *frameLog) sentAt(tick uint64) (at time.Duration, shared, ok bool) {
	e := &l.entries[tick%frameLogSize]
	return e.at, e.shared, e.valid && e.tick == tick
}

// lookup returns when frame tick was sent, if it is remembered and token
// is its token.
func (l *frameLog) lookup(tick uint64, token uint32) (time.Duration, bool) {
	e := &l.entries[tick%frameLogSize]
	if !e.valid || e.tick != tick || e.token != token {
		return 0, false
	}
	return e.at, true
}

// echo processes a submission's liveness echo: a correct token proves the
// client applied that frame, and the frame's send time gives an RTT
// sample. A wrong or unknown token proves nothing.
func (c *Core) echo(p *player, m *msg.OrderSubmit) {
	sentAt, ok := c.frameLog.lookup(m.AckTick, m.Token)
	if !ok {
		return
	}
	if !p.state.Echoed || m.AckTick > p.state.LastEcho {
		p.state.LastEcho, p.state.Echoed = m.AckTick, true
	}
	if sentAt < c.host.end {
		return // the round trip spans the relay's own stall
	}
	p.state.Clock.observeRTT(c.now, c.now-sentAt-usToDur(uint64(m.AckDelayUs)), c.cfg.SkewBudget)
}

// frozenAt is when an active player counts as frozen if it echoes nothing
// newer: FrozenTimeout after the first frame it has not echoed was due, or
// after the relay resumed from its own stall if that was later.
func (c *Core) frozenAt(p *player) (time.Duration, bool) {
	if c.phase != PhasePlaying {
		return 0, false
	}
	first := uint64(0)
	if p.state.Echoed {
		first = p.state.LastEcho + 1
	}
	if first >= c.timeline.next {
		return 0, false
	}
	return max(c.due(first), c.host.end) + c.cfg.FrozenTimeout, true
}

// frozenNow reports whether an active player is frozen at now: it keeps
// talking but has echoed nothing since its frozen deadline t.
func (c *Core) frozenNow(p *player) (t time.Duration, frozen bool) {
	t, ok := c.frozenAt(p)
	return t, ok && c.now >= t && c.now-p.state.LastHeard < c.cfg.FrozenTimeout
}

// checkLiveness removes players that went silent (heartbeat timeout) and
// players that keep talking but stopped echoing liveness tokens (frozen),
// during play. When (nearly) every player looks frozen at once (see
// sharedLateness), the frames are what is not getting through, the
// relay's fault or the common path's: the frozen removals wait another
// heartbeat timeout, after which they count as the players' again.
func (c *Core) checkLiveness() {
	if c.phase != PhasePlaying {
		return // before play the seed exchange's timeouts cover silence
	}
	frozen, active := 0, 0
	c.active(func(p *player) {
		active++
		if c.now-p.state.LastHeard >= c.cfg.HeartbeatTimeout {
			c.lost(p, msg.ReasonTimeout)
		} else if _, f := c.frozenNow(p); f {
			frozen++
		}
	})
	if frozen == 0 {
		return
	}
	grace := time.Duration(0)
	if sharedLateness(frozen, active) {
		grace = c.cfg.HeartbeatTimeout
	}
	c.active(func(p *player) {
		if t, f := c.frozenNow(p); f && c.now >= t+grace {
			c.lost(p, msg.ReasonFrozen)
		}
	})
}
