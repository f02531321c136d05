package relay

import "time"

// hostStallTicks is how many tick intervals past a tick's deadline the
// relay may first run before it counts as stalled itself: an embedder that
// arms its timer at NextDeadline is never that late unless the process was
// not running (GC, CPU starvation, a paused VM).
const hostStallTicks = 2

// hostStall is what the core remembers of its own stalls.
type hostStall struct {
	// lag delays the tick schedule after a stall: tick k is broadcast at
	// its scheduled time plus lag. Each broadcast takes half a tick
	// interval off it, so the relay catches up at twice the tick rate.
	lag time.Duration
	// from and end bound the last stall: the last now before it and the
	// first after it.
	from, end time.Duration
	// resuming is set while the core broadcasts the ticks that came due
	// during a stall beyond what lag covers.
	resuming bool
}

// detectHostStall runs at the top of advance, before the core's clock
// moves to now: if the relay is so late for its next tick deadline that it
// cannot have been running, it takes the lateness as its own stall and
// shifts every clock that would blame the players for it:
//
//   - the tick schedule, by the lateness plus one interval (up to the
//     heartbeat timeout), so the submissions that waited in the relay's
//     receive queue still arrive on time; the lag shrinks by half an
//     interval per broadcast;
//   - the players' heartbeats and open stalls, by the lateness;
//   - frozen detection follows the schedule (it counts from a tick's
//     deadline) and restarts at the end of the stall at the earliest.
//
// It reports whether a stall was detected.
func (c *Core) detectHostStall(now time.Duration) bool {
	if c.phase != PhasePlaying {
		return false
	}
	wake := max(c.now, c.due(c.timeline.next))
	late := now - wake
	if late <= hostStallTicks*c.timeline.interval {
		return false
	}
	c.host.lag = min(c.host.lag+late+c.timeline.interval, c.cfg.HeartbeatTimeout)
	c.timeline.reserve(c.cfg.Profile.DeadlineMax+c.host.lag, len(c.players))
	c.host.from, c.host.end = c.now, now
	for _, p := range c.players {
		p.state.LastHeard = min(p.state.LastHeard+late, now)
		if p.stalled {
			p.stallFrom += late
		}
	}
	c.emit(HostStall{At: wake, Duration: late, Lag: c.host.lag})
	return true
}

// catchUp takes half an interval of the schedule's lag off after a
// broadcast, except for the overdue ticks broadcast at once on resuming.
func (c *Core) catchUp() {
	if !c.host.resuming {
		c.host.lag -= min(c.host.lag, c.timeline.interval/2)
	}
}

// queued reports whether a submission stamped sent may have waited in the
// relay's receive queue during its last stall: the relay is still
// catching up and the player's clock model expected the submission while
// the relay was not running. Its arrival time is unknown, so it is taken
// to be the expected one; it is no evidence of the player's path.
func (c *Core) queued(cal *ClockCalibration, sent time.Duration) bool {
	if c.host.lag == 0 {
		return false
	}
	expected := cal.expectedArrival(c.now, sent)
	return c.host.from <= expected && expected <= c.host.end
}

// sharedLateness reports whether (nearly) every player in the match lacks
// an on-time submission for a tick: at least two players and no more than
// a quarter of them on time. Lateness shared like that is the relay's or
// the common path's, never one player's lag switch.
func sharedLateness(missing, active int) bool {
	return active >= 2 && 4*missing >= 3*active
}
