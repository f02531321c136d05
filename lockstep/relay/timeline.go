package relay

import (
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// timeline is the relay's tick clock: tick k's window is [start + k*T,
// start + (k+1)*T), and the relay broadcasts tick k at the window's end
// plus the tick deadline, whether or not every player's orders are in.
// The windows not yet broadcast live in a ring of slots.
type timeline struct {
	start    time.Duration
	interval time.Duration
	next     uint64 // next tick to broadcast
	slots    []window
}

// window collects one tick's orders.
type window struct {
	tick   uint64
	live   bool
	orders []protocol.TimestampedOrder
	count  []uint16 // orders forwarded, by player index
	onTime []bool   // an on-time submission arrived, by player index
}

func newTimeline(interval, maxDeadline time.Duration, players int) timeline {
	t := timeline{interval: interval}
	t.reserve(maxDeadline, players)
	return t
}

// reserve makes the ring hold every window open while broadcasts run
// behind the windows' ends by up to behind (the deadline, plus the lag of
// a relay catching up after its own stall): the current window back to
// the oldest not broadcast, plus the one ahead a client may claim early.
// Growing keeps the open windows.
func (t *timeline) reserve(behind time.Duration, players int) {
	n := int((behind+2*t.interval)/t.interval) + 2
	if n <= len(t.slots) {
		return
	}
	slots := make([]window, n)
	for _, w := range t.slots {
		if w.live {
			slots[w.tick%uint64(n)] = w
		}
	}
	for i := range slots {
		if slots[i].count == nil {
			slots[i].count = make([]uint16, players)
			slots[i].onTime = make([]bool, players)
		}
	}
	t.slots = slots
}

func (t *timeline) windowStart(k int64) time.Duration {
	return t.start + time.Duration(k)*t.interval
}

// windowOf is the window containing relay time at (negative before tick 0).
func (t *timeline) windowOf(at time.Duration) int64 { return WindowOf(t.start, t.interval, at) }

// WindowOf is the tick window containing relay time at, for a match whose
// tick 0 opens at start and whose windows last interval: floor((at −
// start) / interval), negative before tick 0. Clients use it to file their
// submissions exactly as the relay does.
func WindowOf(start, interval, at time.Duration) int64 {
	d := at - start
	k := int64(d / interval)
	if d < 0 && d%interval != 0 {
		k--
	}
	return k
}

// window returns tick k's slot; k must not be broadcast yet and at most
// the ring's span ahead.
func (t *timeline) window(k uint64) *window {
	w := &t.slots[k%uint64(len(t.slots))]
	if !w.live || w.tick != k {
		w.tick, w.live = k, true
		w.orders = w.orders[:0]
		clear(w.count)
		clear(w.onTime)
	}
	return w
}

// scheduled is when tick k is broadcast by the schedule: the end of its
// window plus the deadline.
func (c *Core) scheduled(k uint64) time.Duration {
	return c.timeline.windowStart(int64(k)+1) + c.deadline
}

// due is when tick k is broadcast: its scheduled time, later while the
// relay catches up after its own stall.
func (c *Core) due(k uint64) time.Duration { return c.scheduled(k) + c.host.lag }

// lastOpenTick is the newest tick a submission may name now: one past the
// current window, for a client whose clock runs slightly ahead.
func (c *Core) lastOpenTick() int64 {
	return c.timeline.windowOf(c.now) + 1
}

// startPlay opens tick 0's window StartDelay from now.
func (c *Core) startPlay() {
	c.phase = PhasePlaying
	c.timeline.start = c.now + c.cfg.StartDelay
	c.timeline.next = 0
	for _, p := range c.players {
		p.state.LastHeard = c.now // heartbeats count from the start of play
	}
}

// finalize broadcasts tick k: the orders forwarded to its window plus an
// Idle for every player in the match without orders, in chronological
// order, with a fresh liveness token and the removal schedule.
func (c *Core) finalize(k uint64) {
	f := c.frames.get()
	f.Removals = f.Removals[:0]
	for _, r := range c.removals {
		if r.AtTick >= k {
			f.Removals = append(f.Removals, r)
		}
	}
	c.applyRemovals(k)
	w := c.timeline.window(k)
	missing, active := 0, 0
	for _, p := range c.players {
		if p.state.Status == StatusRemoved {
			continue
		}
		if w.count[p.index] == 0 {
			w.orders = append(w.orders, protocol.TimestampedOrder{Player: p.state.ID, Order: protocol.Idle{}})
			p.state.IdleTicks++
		}
		if p.state.Status == StatusActive {
			active++
			if !w.onTime[p.index] {
				missing++
			}
			if !c.host.resuming { // the relay's own stall is not the network's
				p.win.ticks++
				if !w.onTime[p.index] {
					p.win.late++
				}
			}
		}
		p.state.Budget.Tick()
		p.state.Bandwidth.Tick()
	}
	sortChronological(w.orders)

	f.Tick, f.Token, f.Flags, f.RunAhead = k, uint32(c.rng.Uint64()), 0, c.runAhead
	f.Orders = append(f.Orders[:0], w.orders...)
	if c.sync.due(c, k) || c.wantsSnapshotSync(k) {
		f.Flags |= msg.FlagSyncRequest
		c.sync.open(k)
	}
	c.frameLog.record(k, f.Token, c.now, sharedLateness(missing, active))
	c.broadcast(f)
	c.catchUp()

	w.live = false
	c.timeline.next = k + 1
	if (k+1)%uint64(c.cfg.FeedbackInterval) == 0 {
		c.endWindow(k)
	}
}

// sortChronological orders a tick's orders by sub-tick time, then player
// id; the sort is stable so one player's equal-time orders keep submission
// order.
func sortChronological(os []protocol.TimestampedOrder) {
	slices.SortStableFunc(os, func(a, b protocol.TimestampedOrder) int { return protocol.CompareChronological(&a, &b) })
}

// applyRemovals takes removals scheduled for tick k into effect: the
// player is absent from tick k on.
func (c *Core) applyRemovals(k uint64) {
	for i := 0; i < len(c.removals); {
		r := c.removals[i]
		if r.AtTick > k {
			i++
			continue
		}
		c.removals = slices.Delete(c.removals, i, i+1)
		if p := c.player(r.Player); p != nil {
			c.removed(p, r)
		}
	}
}
