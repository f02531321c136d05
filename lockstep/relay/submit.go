package relay

import (
	"fmt"
	"math"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// onSubmit runs a submission through timing accounting and the filter
// chain.
func (c *Core) onSubmit(p *player, m *msg.OrderSubmit) error {
	if c.phase != PhasePlaying {
		return fmt.Errorf("%w: OrderSubmit while %v", ErrPhase, c.phase)
	}
	if m.Tick > math.MaxInt64 || int64(m.Tick) > c.lastOpenTick() {
		return fmt.Errorf("%w: submission for tick %d, newest open %d", ErrTick, m.Tick, c.lastOpenTick())
	}
	c.echo(p, m)
	cal := &p.state.Clock
	env := outlierK*cal.Jitter() + c.cfg.SkewBudget
	sent, arrived, dev := usToDur(m.SentUs), c.now, time.Duration(0)
	queued := c.queued(cal, sent)
	if queued {
		arrived = cal.expectedArrival(c.now, sent)
	} else {
		dev = cal.observeOffset(c.now, sent, c.cfg.SkewBudget)
		transit := cal.OneWay() + min(max(dev, -env), env)
		deadline := c.scheduled(m.Tick) - c.timeline.windowStart(int64(m.Tick)+1)
		p.win.path.add(int64((deadline - transit) / time.Microsecond))
	}
	b := &c.batch
	*b = Batch{Now: arrived, Player: p.state.ID, Submit: m, Tick: m.Tick, Late: m.Tick < c.timeline.next,
		Deviation: dev, Envelope: env, Orders: b.Orders[:0], core: c, p: p}
	for _, o := range m.Orders {
		b.Orders = append(b.Orders, BatchOrder{TimestampedOrder: o})
	}
	c.account(p, m.Tick, b.Late, queued, dev, env)
	if b.Late {
		b.DropAll(DropLate)
	}
	for _, f := range c.cfg.Filters {
		f.Apply(b)
	}
	c.reportDrops(b)
	return nil
}

// account records a submission's arrival against its tick's deadline: the
// margin to the tick's scheduled time feeds TimingFeedback; on-time ones
// slowly forgive strikes. dev is how much later than the player's clock
// model expected the submission arrived, env the jitter envelope. A late
// submission is a strike only if it belongs to a stall the player's
// measured path does not explain (see stallUnexplained); such lateness is
// also kept out of QoS adaptation. Lateness the path explains, jitter or
// loss recovery, is the network's, and QoS adaptation answers it. A
// submission queued during the relay's own stall, or late for a tick
// (nearly) everyone was late for, is never a strike: the relay or the
// common path held it, not the player.
func (c *Core) account(p *player, tick uint64, late, queued bool, dev, env time.Duration) {
	margin := (c.scheduled(tick) - c.now) / time.Microsecond
	margin = min(max(margin, -time.Duration(c.cfg.HeartbeatTimeout/time.Microsecond)), time.Duration(c.cfg.HeartbeatTimeout/time.Microsecond))
	if !queued { // its arrival time is unknown
		p.win.n++
		p.win.sum += int64(margin)
		p.win.sumSq += int64(margin) * int64(margin)
	}
	if late {
		_, shared := c.lateBatch(p, tick)
		if !queued && !shared && c.stallUnexplained(p, dev, env) {
			p.win.flagged = true
			c.strike(p, "late")
		}
		return
	}
	c.timeline.window(tick).onTime[p.index] = true
	if queued || c.now >= c.scheduled(tick) {
		return // on time only thanks to the relay's own stall: no evidence
	}
	p.stalled = false
	p.onTimeRun++
	if p.onTimeRun >= c.cfg.Strikes.DecayAfter {
		p.onTimeRun = 0
		p.state.Strikes = max(p.state.Strikes-1, 0)
	}
}

// lateBatch counts a late submission of p for tick and reports it, with
// how long after the tick's frame went out it came and whether (nearly)
// everyone was late for that frame.
func (c *Core) lateBatch(p *player, tick uint64) (lateBy time.Duration, shared bool) {
	p.state.LateSubmissions++
	lateBy = c.now - c.scheduled(tick)
	if at, sh, ok := c.frameLog.sentAt(tick); ok {
		lateBy, shared = c.now-at, sh // the deadline may have moved since
	}
	c.emit(LateSubmission{Player: p.state.ID, Tick: tick, LateBy: lateBy})
	return lateBy, shared
}

// stallUnexplained tells a lag switch from loss recovery for a late
// submission that arrived dev later than expected, env being the jitter
// envelope.
//
// A stall is a run of late submissions that begins with one delayed beyond
// the envelope and ends at the next on-time submission; it started when
// that first one was expected (now - dev). A reliable transport recovers a
// lost submission one or two retransmission timeouts later and releases
// the submissions queued behind it with it, so the stall it causes lasts
// at most lossAllowance and ends. A lag switch holds the flow longer
// (hundreds of milliseconds to seconds) and releases it in a burst, or
// keeps every submission late: the stall outlasts the allowance and every
// late submission after that is a strike, even once the clock model has
// re-anchored on the held flow and the deviations look small. The
// allowance is fixed when the stall begins, from the path measured before
// it: held submissions carry held liveness echoes, and the round trips
// they measure must not widen the allowance of the stall that caused
// them. A late submission within the envelope outside a stall is jitter.
func (c *Core) stallUnexplained(p *player, dev, env time.Duration) bool {
	if !p.stalled {
		if dev <= env {
			return false
		}
		p.stalled, p.stallFrom, p.stallAllowance = true, c.now-dev, lossAllowance(&p.state.Clock, env)
	}
	return c.now-p.stallFrom > p.stallAllowance
}

// Loss recovery the stall rule allows for: the transport's largest
// acknowledgement delay, and a ceiling whatever the path.
const (
	recoveryAckDelay = 5 * time.Millisecond
	maxLossAllowance = time.Second
)

// lossAllowance is the longest stall loss recovery explains on the path:
// the jitter envelope plus two retransmission timeouts, a timeout being
// RFC 6298's srtt + 4·rttvar (at least a quarter of srtt more than srtt,
// the margin of time-threshold loss detection) plus the acknowledgement
// delay, capped at maxLossAllowance.
func lossAllowance(cal *ClockCalibration, env time.Duration) time.Duration {
	rto := cal.RTT.Mean + max(4*cal.RTT.Dev, cal.RTT.Mean/4) + recoveryAckDelay
	return min(env+2*rto, maxLossAllowance)
}

// reportDrops emits one event per drop reason other than lateness (which
// LateSubmission reports).
func (c *Core) reportDrops(b *Batch) {
	var counts [numDropReasons]int
	for i := range b.Orders {
		counts[b.Orders[i].Drop]++
	}
	for r := DropInvalid; r < numDropReasons; r++ {
		if counts[r] > 0 && (r != DropLate || !b.Late) {
			c.emit(OrdersDropped{Player: b.Player, Tick: b.Tick, Reason: r, Count: counts[r]})
		}
	}
}

// endWindow closes a QoS window after tick k: it sends each player its
// TimingFeedback, updates the players' metrics and evaluates the QoS
// adaptation. Each feedback carries the deadline the adaptation leaves in
// force for tick k+1 on; the orders lane delivers it before frame k+1, so
// a client always times frames against the deadline they were sent with.
func (c *Core) endWindow(k uint64) {
	first := len(c.out)
	for _, p := range c.players {
		if p.state.Status == StatusRemoved {
			continue
		}
		w := &p.win
		m := &p.state.Metrics
		m.LateCountWindow = uint16(min(w.late, math.MaxUint16))
		m.EWMALateRateBps = ewmaBps(c.cfg.Profile.EWMAAlphaQ15, lateBps(w.late, w.ticks), m.EWMALateRateBps)
		if w.n > 0 {
			mean, std := w.marginStats()
			jitter := uint32(min(std, math.MaxUint32))
			m.JitterUs = jitter
			target := marginTarget(std)
			limit := int64(c.deadline / time.Microsecond)
			fb := c.feedbacks.get()
			*fb = msg.TimingFeedback{
				AvgArrivalDeltaUs:   int32(mean),
				LateCount:           m.LateCountWindow,
				JitterUs:            jitter,
				RecommendedOffsetUs: int32(min(max(target-mean, -limit), limit)),
			}
			c.send(p.state.ID, fb)
		}
	}
	if ev, ok := c.evaluateQosWindow(k); ok {
		c.emit(ev)
	}
	for _, e := range c.out[first:] {
		if fb, ok := e.Msg.(*msg.TimingFeedback); ok {
			fb.DeadlineUs = uint32(min(durUs(c.deadline), math.MaxUint32))
		}
	}
	for _, p := range c.players {
		if p.win.flagged {
			p.excluded = qosExcludeWindows
		} else if p.excluded > 0 {
			p.excluded--
		}
		p.win = windowStats{}
	}
}

func lateBps(late, total int) uint16 {
	if total == 0 {
		return 0
	}
	return uint16(min(late*10_000/total, 10_000))
}

// ewmaBps smooths a late rate with alpha in q15 (alpha/32768).
func ewmaBps(alphaQ15 uint16, raw, prev uint16) uint16 {
	a := uint32(alphaQ15)
	return uint16((a*uint32(raw) + (32768-a)*uint32(prev)) / 32768)
}
