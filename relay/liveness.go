package relay

import (
	"time"

	"github.com/tickwire/tickwire/relay/msg"
)

// frameLogSize is how many recent frames the relay remembers for liveness
// echoes and RTT samples (about two seconds at 30 ticks per second).
const frameLogSize = 64

// frameLog remembers the token and send time of recent frames.
type frameLog struct {
	entries [frameLogSize]struct {
		tick  uint64
		token uint32
		at    time.Duration
		valid bool
	}
}

func (l *frameLog) record(tick uint64, token uint32, at time.Duration) {
	e := &l.entries[tick%frameLogSize]
	e.tick, e.token, e.at, e.valid = tick, token, at, true
}

// sentAt returns when frame tick was sent, if it is remembered.
func (l *frameLog) sentAt(tick uint64) (time.Duration, bool) {
	e := &l.entries[tick%frameLogSize]
	return e.at, e.valid && e.tick == tick
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
	p.state.Clock.observeRTT(c.now, c.now-sentAt-usToDur(uint64(m.AckDelayUs)), c.cfg.SkewBudget)
}

// frozenAt is when an active player counts as frozen if it echoes nothing
// newer: FrozenTimeout after the first frame it has not echoed was due.
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
	return c.due(first) + c.cfg.FrozenTimeout, true
}

// checkLiveness removes players that went silent (heartbeat timeout) and
// players that keep talking but stopped echoing liveness tokens (frozen),
// during play.
func (c *Core) checkLiveness() {
	if c.phase != PhasePlaying {
		return // before play the seed exchange's timeouts cover silence
	}
	c.active(func(p *player) {
		switch t, frozen := c.frozenAt(p); {
		case c.now-p.state.LastHeard >= c.cfg.HeartbeatTimeout:
			c.scheduleRemoval(p, msg.ReasonTimeout)
		case frozen && c.now >= t && c.now-p.state.LastHeard < c.cfg.FrozenTimeout:
			c.scheduleRemoval(p, msg.ReasonFrozen)
		}
	})
}
