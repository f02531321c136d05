package lockstep

import (
	"fmt"
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
)

// clientState is the relay client's protocol state, held by clientCore.
// Times without a prefix are on the client clock; relay times are client
// times plus offset.
type clientState struct {
	id                 protocol.PlayerID
	roomSize, tickRate int
	status             Status
	err                error

	contribution        [32]byte
	nonce               [16]byte
	committed, revealed bool

	interval     time.Duration // tick window
	deadline     time.Duration // the relay's tick deadline
	offset       time.Duration // relay = client + offset, from clock during play
	clock        clockSync
	submitOffset time.Duration // submit this long before a window ends
	start        time.Duration // relay time tick 0's window opens
	seed         uint64
	seeded       bool
	nextSend     int64 // the next submission is due at start + nextSend*interval - submitOffset

	pending   []pendingOrder
	queue     []queuedFrame // confirmed ticks not yet polled
	nextFrame uint64        // the tick the next frame must carry
	echoes    echoRing      // the frames polled last, to echo one of them
	acked     bool          // echoes holds one

	syncWanted []uint64      // polled ticks whose hash the relay asked for
	schedule   []msg.Removal // announced removals not yet in effect
	removed    []msg.Removal // removals in effect

	polledAt    time.Duration // when the newest tick was handed out
	procUs      uint32        // smoothed time from PollTick to ReportSyncHash
	nextMetrics time.Duration

	rejoin     rejoinState
	lateNotice lateIndicator

	diag Diagnostics

	desync desyncClient
}

// echoAge is how much older than the newest polled frame the echoed one
// is (by its tick): the relay measures the round trip from the echo, and
// the newest frame polled before a submission is biased toward the frames
// that came fast (a slow one is not in yet, so the one before it is
// echoed), which makes a jittery path look shorter than it is and skews
// the relay's clock model, and with it sub-tick parity, against that
// player. A frame this much older than the newest has arrived whatever
// its delay within the jitter, so which one is echoed does not depend on
// how fast it came.
const echoAge = 100 * time.Millisecond

// echoRing holds the frames polled last: tick, token and receipt.
type echoRing struct {
	ring [16]echo
	n    int
}

type echo struct {
	tick  uint64
	token uint32
	at    time.Duration
}

func (r *echoRing) add(f queuedFrame) {
	r.ring[r.n%len(r.ring)] = echo{f.ticks.Tick, f.token, f.at}
	r.n++
}

// pick is the newest frame polled whose tick is at least echoAge (in
// windows of interval) older than the newest one, or the oldest held.
func (r *echoRing) pick(interval time.Duration) echo {
	newest := r.ring[(r.n-1)%len(r.ring)]
	back := uint64(1)
	if interval > 0 {
		back = uint64((echoAge + interval - 1) / interval)
	}
	best := newest
	for i := 1; i <= min(r.n, len(r.ring)); i++ {
		e := r.ring[(r.n-i)%len(r.ring)]
		best = e
		if e.tick+back <= newest.tick {
			break
		}
	}
	return best
}

// pendingOrder is a submitted order and when it was issued.
type pendingOrder struct {
	order protocol.TimestampedOrder
	at    time.Duration
}

// queuedFrame is a confirmed tick and what the client must echo for it.
type queuedFrame struct {
	ticks protocol.TickOrders
	token uint32
	sync  bool
	at    time.Duration // receipt
}

// maxPending bounds orders waiting for a submission; beyond it the
// oldest are dropped (a game loop feeding orders with no relay to take
// them).
const maxPending = 4096

func us(d time.Duration) uint64 { return uint64(max(d, 0) / time.Microsecond) }

// fail ends the client with err.
func (c *clientCore) fail(err error) {
	st := &c.st
	if st.err == nil {
		st.err = err
	}
	if st.status < StatusEnded {
		st.status = StatusDisconnected
		c.log.Info("lockstep: relay connection ended", "player", st.id, "err", err)
	}
}

// handle processes one message from the relay received at now.
func (c *clientCore) handle(in msg.Message, now time.Duration) {
	st := &c.st
	if st.status >= StatusEnded || c.handleRejoin(in, now) {
		return
	}
	switch m := in.(type) {
	case *msg.CalibrationPing:
		if st.status == StatusConnecting {
			st.status = StatusCalibrating
		}
		if !st.committed {
			st.committed = true
			c.send(&msg.SeedCommit{Commitment: relay.Commitment(st.contribution, st.nonce)})
		}
		c.send(&msg.CalibrationPong{Seq: m.Seq, RelaySendUs: m.RelaySendUs, ClientRecvUs: us(now), ClientSendUs: us(now)})
	case *msg.MatchTiming:
		st.interval = time.Duration(m.TickIntervalUs) * time.Microsecond
		if exact := time.Second / time.Duration(max(st.tickRate, 1)); exact/time.Microsecond == st.interval/time.Microsecond {
			// The relay's window is a second over the tick rate, which
			// microseconds truncate: 333 ns a tick at 30 ticks per second,
			// 6.7 ms after 20,000 ticks.
			st.interval = exact
		}
		st.deadline = time.Duration(m.DeadlineUs) * time.Microsecond
		st.offset = time.Duration(m.ClockOffsetUs) * time.Microsecond
		st.submitOffset = min(time.Duration(m.SubmitOffsetUs)*time.Microsecond, st.maxOffset())
		st.diag.RunAhead = int(m.RunAhead)
	case *msg.SeedCommitments:
		if !st.revealed {
			st.revealed = true
			c.send(&msg.SeedReveal{Contribution: st.contribution, Nonce: st.nonce})
		}
	case *msg.SeedResult:
		if st.interval <= 0 {
			c.fail(fmt.Errorf("%w: seed result before match timing", ErrProtocol))
			return
		}
		st.seed, st.seeded = m.Seed, true
		st.start = time.Duration(m.StartUs) * time.Microsecond
		st.nextSend = 1
		st.clock.begin(st.start, st.interval, st.deadline, st.offset)
		st.nextMetrics = now + c.cfg.MetricsInterval
		st.status = StatusPlaying
	case *msg.TickFrame:
		c.frame(m, now)
	case *msg.TimingFeedback:
		st.feedback(m)
	case *msg.LateNotice:
		st.diag.LateOrders++
		st.diag.Strikes = int(m.Strikes)
		st.diag.LastLateBy = time.Duration(m.LateByUs) * time.Microsecond
		st.lateNotice.late(st.diag.LastLateBy, now, &st.diag)
	case *msg.DebugLevel, *msg.DesyncReport, *msg.DesyncDebugRequest, *msg.MerkleQuery:
		c.onDesync(m)
	case *msg.DesyncDetected:
		st.diag.Desyncs++
		if st.diag.Desyncs == 1 {
			st.diag.DesyncTick = m.Tick
		}
		st.status = StatusDesynced
		c.log.Warn("lockstep: relay reports a desync", "player", st.id, "tick", m.Tick)
	case *msg.PlayerRemoved:
		if !st.seeded && m.AtTick == 0 {
			st.removed = append(st.removed, m.Removal)
			if m.Player == st.id {
				c.fail(fmt.Errorf("lockstep: removed from the match before it started: %v", m.Reason))
			}
			return
		}
		st.announce(m.Removal)
	}
}

// frame queues a confirmed tick.
func (c *clientCore) frame(f *msg.TickFrame, at time.Duration) {
	st := &c.st
	if !st.frameAccepted(f) {
		c.fail(fmt.Errorf("%w: frame for tick %d, expected %d", ErrProtocol, f.Tick, st.nextFrame))
		return
	}
	if len(st.queue) >= c.cfg.MaxQueuedTicks {
		c.fail(fmt.Errorf("lockstep: %d confirmed ticks not polled", len(st.queue)))
		return
	}
	st.nextFrame++
	c.trackClock(f.Tick, at)
	st.diag.RunAhead = int(f.RunAhead)
	for _, r := range f.Removals {
		st.announce(r)
	}
	st.queue = append(st.queue, queuedFrame{ticks: protocol.TickOrders{Tick: f.Tick, Orders: f.Orders},
		token: f.Token, sync: f.Flags&msg.FlagSyncRequest != 0, at: at})
}

// trackClock feeds frame tick's arrival at client time at to the clock
// estimate. When the estimate of the relay clock steps back (the client
// clock jumped ahead), the submission schedule restarts at the current
// window: the windows it skipped were claimed too early for the relay to
// accept.
func (c *clientCore) trackClock(tick uint64, at time.Duration) {
	st := &c.st
	if st.clock.frame(tick, at, c.rtt) && st.clock.offset < st.offset {
		st.nextSend = min(st.nextSend, st.windowOf(at+st.clock.offset+st.submitOffset)+1)
	}
	st.offset = st.clock.offset
	st.diag.ClockOffset = st.offset
	st.diag.ClockCorrection = st.offset - st.clock.calibrated
	st.diag.ClockDriftPPM = st.clock.driftPPM
	st.diag.ClockSteps = st.clock.steps
}

// announce records a scheduled removal once.
func (st *clientState) announce(r msg.Removal) {
	if slices.Contains(st.schedule, r) || slices.Contains(st.removed, r) {
		return
	}
	st.schedule = append(st.schedule, r)
}

// feedback moves the submit offset: earlier (by at most feedbackStep) when
// submissions were late, later by up to relaxStep whenever they arrive
// earlier than the relay's target margin needs (an offset the path no
// longer needs costs the player the orders issued in its last part of
// each window, which go to the next). It also takes the relay's tick deadline for the frames that
// follow, which the clock estimate needs to tell the relay moving its
// deadline from the client's clock drifting.
func (st *clientState) feedback(fb *msg.TimingFeedback) {
	if fb.DeadlineUs > 0 {
		st.deadline = time.Duration(fb.DeadlineUs) * time.Microsecond
		st.clock.deadline = st.deadline
	}
	st.diag.LateTicks += int(fb.LateCount)
	rec := time.Duration(fb.RecommendedOffsetUs) * time.Microsecond
	margin := time.Duration(fb.AvgArrivalDeltaUs) * time.Microsecond
	switch {
	case fb.LateCount > 0:
		st.submitOffset += min(max(rec, relaxStep), feedbackStep)
	case rec < 0 && (margin > relaxAbove || st.submitOffset > 0):
		st.submitOffset -= min(-rec, relaxStep)
	}
	st.submitOffset = min(max(st.submitOffset, 0), st.maxOffset())
}

// maxOffset bounds the submit offset: by the deadline, and to less than a
// tick window. The relay files a submission under the window it was sent
// in (its orders were issued in the window before the send), so an offset
// of a window or more gains nothing over its remainder: sending a
// window's batch earlier than its start cannot make it earlier.
func (st *clientState) maxOffset() time.Duration {
	return max(min(st.deadline, st.interval-time.Millisecond), 0)
}

// submit batches an order issued at now.
func (st *clientState) submit(o protocol.TimestampedOrder, now time.Duration) {
	if len(st.pending) >= maxPending {
		st.pending = slices.Delete(st.pending, 0, 1)
	}
	st.pending = append(st.pending, pendingOrder{order: o, at: now})
}

// poll hands out the next confirmed tick and takes due removals into
// effect.
func (st *clientState) poll(now time.Duration) (protocol.TickOrders, bool) {
	if len(st.queue) == 0 || st.holding() {
		return protocol.TickOrders{}, false
	}
	f := st.queue[0]
	st.queue[0] = queuedFrame{}
	st.queue = st.queue[1:]
	if len(st.queue) == 0 {
		st.queue = st.queue[:0:0] // let the backing array go
	}
	st.echoes.add(f)
	st.acked = true
	st.diag.Tick = f.ticks.Tick
	st.polledAt = now
	if f.sync {
		st.syncWanted = append(st.syncWanted, f.ticks.Tick)
	}
	for i := 0; i < len(st.schedule); {
		r := st.schedule[i]
		if r.AtTick > f.ticks.Tick {
			i++
			continue
		}
		st.schedule = slices.Delete(st.schedule, i, i+1)
		st.removed = append(st.removed, r)
		if r.Player == st.id && st.status < StatusEnded {
			st.status = StatusDisconnected
			st.err = fmt.Errorf("lockstep: removed from the match at tick %d: %v", r.AtTick, r.Reason)
		}
	}
	return f.ticks, true
}

// reportHash records the tick's processing time and reports whether the
// relay asked for its hash.
func (st *clientState) reportHash(tick uint64, now time.Duration) bool {
	if st.rejoin.observer {
		return false // an observer's hash does not count
	}
	if tick == st.diag.Tick {
		d := uint32(min(us(now-st.polledAt), 1<<31))
		st.procUs = (7*st.procUs + d) / 8
	}
	i := slices.Index(st.syncWanted, tick)
	if i < 0 {
		return false
	}
	st.syncWanted = slices.Delete(st.syncWanted, i, i+1)
	return true
}

// timers sends the submission and metrics that are due at now.
func (c *clientCore) timers(now time.Duration) {
	st := &c.st
	if !st.seeded || st.status >= StatusEnded {
		return
	}
	st.lateNotice.refresh(now, &st.diag)
	rnow := now + st.offset
	if at := st.sendAt(); rnow >= at && st.submitting() {
		// The submission belongs to the window that ends (less the
		// submit offset) at its scheduled time, even if the timer fired
		// a little after the boundary; if the client fell behind by more
		// than a window, to the one before the current.
		claim := max(st.windowOf(at-time.Microsecond), st.windowOf(rnow)-1)
		c.submitWindow(now, rnow, claim)
		st.nextSend = int64((rnow-st.start+st.submitOffset)/st.interval) + 1
	}
	if now >= st.nextMetrics && !st.rejoin.observer {
		st.nextMetrics = now + c.cfg.MetricsInterval
		m := &msg.ClientMetrics{
			AvgLatencyUs:     uint32(min(us(c.rtt), 1<<32-1)),
			ArrivalCushion:   int16(min(len(st.queue), 1<<15-1)),
			TickProcessingUs: st.procUs,
		}
		if c.cfg.FPS != nil {
			m.AvgFPS = uint16(min(max(c.cfg.FPS(), 0), 1<<16-1))
		}
		c.send(m)
	}
}

// sendAt is the relay time the next submission is due.
func (st *clientState) sendAt() time.Duration {
	return st.start + time.Duration(st.nextSend)*st.interval - st.submitOffset
}

// windowOf is the tick window containing relay time at.
func (st *clientState) windowOf(at time.Duration) int64 {
	return relay.WindowOf(st.start, st.interval, at)
}

// submitWindow sends the batch of window claim at relay time rnow: one
// OrderSubmit, also when empty (it is the heartbeat and carries the
// liveness echo). Each order's hint is its issue time within the window.
func (c *clientCore) submitWindow(now, rnow time.Duration, claim int64) {
	st := &c.st
	if claim < 0 {
		return
	}
	ws := st.start + time.Duration(claim)*st.interval
	n := min(len(st.pending), maxOrdersPerSubmit)
	orders := make([]protocol.TimestampedOrder, n)
	for i, p := range st.pending[:n] {
		o := p.order
		o.Player = st.id
		sub := min(max(p.at+st.offset-ws, 0), st.interval-time.Microsecond)
		o.SubTickTime = uint32(sub / time.Microsecond)
		orders[i] = o
	}
	s := &msg.OrderSubmit{Tick: uint64(claim), SentUs: us(rnow), Orders: orders}
	if st.acked {
		e := st.echoes.pick(st.interval)
		s.AckTick, s.Token = e.tick, e.token
		s.AckDelayUs = uint32(min(us(now-e.at), 1<<32-1))
	}
	c.inflight.s, c.inflight.orders = s, st.pending[:n:n]
	st.pending = st.pending[n:]
	st.diag.OrdersSent += n
	c.send(s)
}
