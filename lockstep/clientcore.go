package lockstep

import (
	"log/slog"
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
)

// clientCore is the relay client's protocol as a pure state machine, the
// client-side counterpart of relay.Core: it never reads a clock, starts a
// goroutine or touches a socket. The shell (RelayClient) feeds it the
// relay's decoded messages with Step, the passage of time with Tick and
// the path's round-trip time with ObserveRTT, sends what Ready returns,
// calls Advance, and calls Tick again at NextDeadline. The game loop's
// calls (submit, poll, reportHash) go through the shell too.
//
// Every method takes now, the client's monotonic clock as a duration
// since an epoch of the shell's choosing; a now earlier than one seen
// before is taken as the latest one. Relay times are client times plus
// the clock offset the core keeps estimating (see clockSync).
//
// A clientCore is not safe for concurrent use.
type clientCore struct {
	cfg RelayClientConfig
	log *slog.Logger
	now time.Duration
	rtt time.Duration // the path's smoothed round-trip time
	st  clientState

	out   []msg.Message
	taken int // messages handed out by the last Ready
	// inflight is the submission in out and the orders it carries, so a
	// send that fails can give them back.
	inflight struct {
		s      *msg.OrderSubmit
		orders []pendingOrder
	}
}

// newClientCore returns the core of a seated player; cfg has its defaults.
func newClientCore(cfg RelayClientConfig, log *slog.Logger, seat join.Seat, contribution [32]byte, nonce [16]byte) *clientCore {
	c := &clientCore{cfg: cfg, log: log}
	c.st.id, c.st.roomSize, c.st.tickRate = seat.Player, seat.RoomSize, seat.TickRate
	c.st.contribution, c.st.nonce = contribution, nonce
	c.st.status = StatusConnecting
	return c
}

// clientReady is what the core has produced since the last Advance:
// messages to send, in order.
type clientReady struct {
	Messages []msg.Message
}

// HasReady reports whether Ready has anything.
func (c *clientCore) HasReady() bool { return len(c.out) > c.taken }

// Ready returns the messages produced since the last Advance.
func (c *clientCore) Ready() clientReady {
	c.taken = len(c.out)
	return clientReady{Messages: c.out[:c.taken]}
}

// Advance acknowledges the last Ready: its messages were handed to the
// connection (or reported with Unsent). Messages produced after that
// Ready, such as an Unsent retry, wait for the next one.
func (c *clientCore) Advance() {
	n := copy(c.out, c.out[c.taken:])
	clear(c.out[n:])
	c.out = c.out[:n]
	c.taken = 0
}

func (c *clientCore) send(m msg.Message) { c.out = append(c.out, m) }

// advance moves the core's clock.
func (c *clientCore) advance(now time.Duration) time.Duration {
	c.now = max(c.now, now)
	return c.now
}

// ObserveRTT records the path's smoothed round-trip time (the transport
// connection's).
func (c *clientCore) ObserveRTT(rtt time.Duration) { c.rtt = rtt }

// Step processes one message from the relay received at now.
func (c *clientCore) Step(now time.Duration, m msg.Message) { c.handle(m, c.advance(now)) }

// Fail ends the client: the connection ended or sent something undecodable.
func (c *clientCore) Fail(err error) { c.fail(err) }

// Tick sends the submission and metrics due at now.
func (c *clientCore) Tick(now time.Duration) { c.timers(c.advance(now)) }

// NextDeadline is the client time of the next due timer, if any.
func (c *clientCore) NextDeadline() (time.Duration, bool) {
	st := &c.st
	switch {
	case !st.seeded || st.status >= StatusEnded || st.rejoin.observer:
		return 0, false
	case !st.submitting():
		return st.nextMetrics, true
	}
	return min(st.sendAt()-st.offset, st.nextMetrics), true
}

// Unsent reports that m, from the last Ready, could not be sent, and
// whether because it is too large to encode or for its lane. A submission
// too large is split: half its orders go again at once (with the same
// heartbeat), the rest wait for the next window; a single order that
// cannot be sent is dropped. A submission refused for another reason
// (backpressure, a closed connection) gives its orders back. Other
// messages are not retried.
func (c *clientCore) Unsent(m msg.Message, tooLarge bool) {
	s, ok := m.(*msg.OrderSubmit)
	if !ok || s != c.inflight.s {
		return
	}
	st := &c.st
	orders := c.inflight.orders
	keep := 0
	switch {
	case tooLarge && len(s.Orders) > 1:
		keep = len(s.Orders) / 2
	case tooLarge:
		c.log.Warn("lockstep: dropping an order too large to send", "player", st.id)
		orders = orders[len(s.Orders):]
	default:
		c.inflight.s = nil
		st.diag.OrdersSent -= len(s.Orders)
		st.pending = append(slices.Clip(orders), st.pending...)
		return
	}
	st.diag.OrdersSent -= len(s.Orders) - keep
	st.pending = append(slices.Clip(orders[keep:]), st.pending...)
	retry := *s
	retry.Orders = s.Orders[:keep]
	c.inflight.s, c.inflight.orders = &retry, orders[:keep]
	c.send(&retry)
}

// submit batches an order issued at now.
func (c *clientCore) submit(o protocol.TimestampedOrder, now time.Duration) {
	c.st.submit(o, c.advance(now))
}

// poll hands out the next confirmed tick.
func (c *clientCore) poll(now time.Duration) (protocol.TickOrders, bool) {
	t, ok := c.st.poll(c.advance(now))
	if ok {
		c.caughtUp(c.now)
	}
	return t, ok
}

// reportHash sends the state hash of tick if the relay asked for it.
func (c *clientCore) reportHash(tick, hash uint64, now time.Duration) {
	if c.st.reportHash(tick, c.advance(now)) {
		c.send(&msg.SyncHash{Tick: tick, Hash: hash})
	}
}
