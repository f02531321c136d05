package room

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// StatusInterval is how often a driver publishes its room's Status.
const StatusInterval = time.Second

// Driver runs one room of any model: it owns the loop, the timer, the
// seats' connections, batching and flushing, and the backpressure policy
// (see SendGrace). Each turn it takes everything the inbox holds, hands it
// to the Core with the server clock's now, ticks the Core, sends what its
// Ready holds with one flush for the room (a transport.FlushGroup: one
// batch write), advances it, enforces the policy and publishes the
// status. A model's New returns NewDriver(p, itsCore).
type Driver struct {
	p         Params
	core      Core
	holder    InboundHolder // nil: every message wakes the room
	counters  *Counters
	published atomic.Pointer[Status]

	// Owned by Run.
	seats      []seatConn
	taken      []Inbound
	flushing   []*transport.Conn
	flusher    transport.FlushGroup
	nextStatus time.Duration
	nextCheck  time.Duration
	turns      Ring[time.Duration] // processing time of the last turns
	logged     [NumSendCauses]bool // a failed send of the cause was logged
}

// seatConn is a seat as the driver sends to it.
type seatConn struct {
	conn    *transport.Conn
	open    bool // the driver sends to it
	ended   bool // the Core was told the connection ended
	left    bool // ended by the player's Leave: the connection waits for the match result
	touched bool // sent to since the last flush
	pressure
}

// NewDriver returns the driver of a room whose core is c. Params.Counters
// nil gives the room counters of its own.
func NewDriver(p Params, c Core) *Driver {
	d := &Driver{p: p, core: c, counters: p.Counters}
	d.holder, _ = c.(InboundHolder)
	d.turns = NewRing[time.Duration](TurnHistory)
	if d.counters == nil {
		d.counters = new(Counters)
	}
	if d.p.Logger == nil {
		d.p.Logger = slog.New(slog.DiscardHandler)
	}
	if d.p.CloseSeat == nil {
		d.p.CloseSeat = func(int, string) {}
	}
	for _, s := range p.Seats {
		d.seats = append(d.seats, seatConn{conn: s.Conn, open: true})
	}
	d.publish(p.Clock())
	return d
}

// Status implements Room: the status last published.
func (d *Driver) Status() Status { return *d.published.Load() }

// Run implements Room: it drives the room until its Core is done or ctx
// is done.
func (d *Driver) Run(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	defer func() {
		now := d.p.Clock()
		d.core.End(now)
		d.publish(now)
		d.sendResult()
	}()
	for {
		var ready <-chan struct{}
		if d.holder == nil || !d.holder.HoldInbound() {
			ready = d.p.Inbox.Ready()
		}
		select {
		case <-ready:
		case <-timer.C:
		case <-ctx.Done():
			return nil
		}
		now := d.turn()
		if d.core.Done() {
			return nil
		}
		timer.Reset(max(d.next(now)-d.p.Clock(), 0))
	}
}

// turn runs one turn and returns its now.
func (d *Driver) turn() time.Duration {
	d.taken = d.p.Inbox.Take(d.taken[:0])
	now := d.p.Clock()
	start := now
	for i := range d.taken {
		d.handle(now, &d.taken[i])
	}
	clear(d.taken)
	now = d.p.Clock()
	d.retry(now)
	d.core.Tick(now)
	d.output(now)
	for d.enforce(now) {
		d.output(now)
	}
	d.turns.Push(d.p.Clock() - start)
	if now >= d.nextStatus {
		d.publish(now)
	}
	return now
}

// next is when the next turn is due: the Core's deadline, a backlog's
// retry or the next status, whichever is first.
func (d *Driver) next(now time.Duration) time.Duration {
	next := min(d.nextStatus, d.nextCheck)
	if t, ok := d.core.Next(); ok {
		next = min(next, t)
	}
	for i := range d.seats {
		if s := &d.seats[i]; s.open && len(s.backlog.queue) > 0 {
			next = min(next, now+RetryInterval, s.backlog.since+SendGrace)
		}
	}
	return next
}

// handle keeps the seats' connections up to date and hands in to the
// Core.
func (d *Driver) handle(now time.Duration, in *Inbound) {
	for in.Seat >= len(d.seats) {
		d.seats = append(d.seats, seatConn{ended: true})
	}
	s := &d.seats[in.Seat]
	switch {
	case in.Joined != nil:
		*s = seatConn{conn: in.Joined.Conn, open: true}
		s.asked, s.heard = s.conn.Heard()
	case in.Err != nil:
		if s.ended { // the driver dropped it already
			return
		}
		s.open, s.ended, s.left = false, true, errors.Is(in.Err, ErrLeft)
		s.backlog.reset()
	case s.left: // what a player sent after its Leave: it is gone for the Core
		return
	}
	d.core.Handle(now, in)
}

// output sends what the Core produced until it has nothing more.
func (d *Driver) output(now time.Duration) {
	for d.core.HasReady() {
		rd := d.core.Ready()
		for _, e := range rd.Messages {
			if e.Broadcast {
				for i := range d.seats {
					d.send(now, i, e.Lane, e.Data)
				}
			} else if e.Seat >= 0 && e.Seat < len(d.seats) {
				d.send(now, e.Seat, e.Lane, e.Data)
			}
		}
		d.flush()
		for _, c := range rd.Close {
			if c.Seat >= 0 && c.Seat < len(d.seats) && d.seats[c.Seat].open {
				d.seats[c.Seat].open = false
				d.seats[c.Seat].backlog.reset()
				d.p.CloseSeat(c.Seat, c.Reason)
			}
		}
		d.core.Advance()
	}
}

// send queues data for seat i on lane, behind what waits in the seat's
// backlog for that lane.
func (d *Driver) send(now time.Duration, i int, lane transport.ChannelID, data []byte) {
	s := &d.seats[i]
	if !s.open {
		return
	}
	if s.backlog.holds(lane) {
		s.backlog.push(now, lane, data)
		return
	}
	err := s.conn.Send(lane, data)
	if err == nil {
		d.counters.MessagesOut.Add(1)
		s.touched = true
		return
	}
	cause := Cause(err)
	d.counters.SendErrors[cause].Add(1)
	if cause == SendBackpressure {
		s.backlog.push(now, lane, data)
		return
	}
	if !d.logged[cause] {
		d.logged[cause] = true
		d.p.Logger.Warn("room: send failed (further failures of this cause are only counted)",
			"seat", i, "cause", cause.String(), "lane", lane, "err", err)
	}
}

// retry sends what waits in the seats' backlogs.
func (d *Driver) retry(now time.Duration) {
	for i := range d.seats {
		s := &d.seats[i]
		if !s.open || len(s.backlog.queue) == 0 {
			continue
		}
		n, err := s.backlog.drain(now, s.conn)
		d.counters.MessagesOut.Add(uint64(n))
		if n > 0 {
			s.touched = true
		}
		if err != nil { // the connection ended: its end is on its way
			d.counters.SendErrors[Cause(err)].Add(uint64(len(s.backlog.queue)))
			s.backlog.reset()
		}
	}
	d.flush()
}

// enforce drops the seats that broke the policy at now (looking at
// their acknowledgements every CheckInterval); it reports whether it
// dropped one (the Core was told, and may have output).
func (d *Driver) enforce(now time.Duration) bool {
	check := now >= d.nextCheck
	if check {
		d.nextCheck = now + CheckInterval
	}
	dropped := false
	for i := range d.seats {
		s := &d.seats[i]
		if !s.open {
			continue
		}
		if check {
			s.check(now, s.conn)
		}
		if !s.overdue(now) {
			continue
		}
		reason := s.reason(now)
		s.open, s.ended = false, true
		s.backlog.reset()
		d.counters.TooSlow.Add(1)
		if ok, unlogged := d.counters.logSlow(now); ok {
			d.p.Logger.Warn("room: seat too slow, disconnected (further ones within a second are only counted)",
				"seat", i, "reason", reason, "unlogged_before", unlogged)
		}
		d.p.CloseSeat(i, reason)
		d.core.Handle(now, &Inbound{Seat: i, At: now, Err: ErrTooSlow})
		dropped = true
	}
	return dropped
}

// flush flushes the connections sent to, with one batch write.
func (d *Driver) flush() {
	for i := range d.seats {
		if s := &d.seats[i]; s.touched {
			s.touched = false
			d.flushing = append(d.flushing, s.conn)
		}
	}
	if len(d.flushing) > 0 {
		d.flusher.Flush(d.flushing...)
	}
	clear(d.flushing)
	d.flushing = d.flushing[:0]
}

// sendResult sends the message Params.Result makes of the final status
// to every seat still open or left with Leave, players and spectators
// alike, and flushes: the server closes the connections after Run
// returns, delivering it first.
func (d *Driver) sendResult() {
	if d.p.Result == nil {
		return
	}
	data := d.p.Result(d.Status())
	if data == nil {
		return
	}
	for i := range d.seats {
		s := &d.seats[i]
		if !s.open && !s.left {
			continue
		}
		if err := s.conn.Send(lanes.Orders, data); err != nil {
			d.counters.SendErrors[Cause(err)].Add(1)
			continue
		}
		d.counters.MessagesOut.Add(1)
		s.touched = true
	}
	d.flush()
}

// publish stores the Core's status.
func (d *Driver) publish(now time.Duration) {
	st := d.core.Status(now)
	st.Turns = d.turns.AppendTo(nil)
	if d.p.TickRate > 0 {
		st.Budget = time.Second / time.Duration(d.p.TickRate)
	}
	if r, ok := d.core.(Reporter); ok {
		rep := r.Report(now)
		st.Report = &rep
	}
	d.published.Store(&st)
	d.nextStatus = now + StatusInterval
}
