// The lockstep network model: its room.Model and its room, a relay.Core
// driven by one goroutine (the relay server before it hosted other models).

package server

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// lockstepModel is the built-in network model: relay-assisted lockstep,
// one relay.Core per room.
func (s *Server) lockstepModel() room.Model {
	return room.Model{
		Name:        room.Lockstep,
		MaxRoomSize: s.cfg.MaxRoomSize,
		TickRate:    s.cfg.TickRate,
		Channels:    lanes.Channels(),
		New:         func(p room.Params) (room.Room, error) { return s.newLockstepRoom(p) },
	}
}

// lockstepRoom is one lockstep game: a relay core and its seats. One
// goroutine (Run) drives it: it takes everything the seats' readers
// queued at once, feeds the core, and sends what the core produced with
// one flush for the room's connections: they form one poll group.
type lockstepRoom struct {
	s         *Server
	name      string
	size      int
	log       *slog.Logger
	inbox     *room.Inbox
	closeSeat func(i int, reason string)
	published atomic.Pointer[lockstepStatus]

	// Owned by Run.
	core      *relay.Core
	members   []*member
	gone      int // members gone or removed
	taken     []room.Inbound
	notices   []msg.LateNotice // by player index, for this Ready
	late      []bool
	buf       []byte
	touched   []*member
	flushing  []*transport.Conn
	flusher   transport.FlushGroup
	nextStats time.Duration
	sends     sendLog // failed sends, logged once per cause
}

// lockstepStatus is a lockstep room's published figures.
type lockstepStatus struct {
	room.Status
	RunAhead uint8
	Deadline time.Duration
}

// member is a seat of a lockstep room.
type member struct {
	id            protocol.PlayerID
	conn          *transport.Conn
	gone, removed bool // connection ended; removed from the match
	flush         bool
}

func (s *Server) newLockstepRoom(p room.Params) (*lockstepRoom, error) {
	ids := make([]protocol.PlayerID, len(p.Seats))
	r := &lockstepRoom{s: s, name: p.Name, size: len(p.Seats), log: p.Logger, inbox: p.Inbox, closeSeat: p.CloseSeat}
	for i, st := range p.Seats {
		ids[i] = st.Player
		r.members = append(r.members, &member{id: st.Player, conn: st.Conn})
	}
	cfg := s.cfg.Relay
	cfg.TickRate = p.TickRate
	core, err := relay.New(cfg, ids, p.Clock())
	if err != nil {
		return nil, err
	}
	r.core = core
	r.notices, r.late = make([]msg.LateNotice, r.size), make([]bool, r.size)
	r.published.Store(&lockstepStatus{Status: room.Status{Phase: core.Phase().String()}})
	return r, nil
}

// Status implements room.Room.
func (r *lockstepRoom) Status() room.Status { return r.published.Load().Status }

// Run implements room.Room: it drives the game until it ends, every
// connection is gone or ctx is done.
func (r *lockstepRoom) Run(ctx context.Context) error {
	s := r.s
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		// While the game plays, messages wait in the inbox for the next
		// deadline: they carry their arrival time, and nothing they cause
		// is due before it. Before play the seed exchange and calibration
		// answer messages as they come.
		var ready <-chan struct{}
		if r.core.Phase() != relay.PhasePlaying {
			ready = r.inbox.Ready()
		}
		select {
		case <-ready:
		case <-timer.C:
		case <-ctx.Done():
			return nil
		}
		r.taken = r.inbox.Take(r.taken[:0])
		for i := range r.taken {
			r.handle(&r.taken[i])
		}
		clear(r.taken)
		now := s.clock()
		r.core.Tick(now)
		r.output(now)
		if r.core.Phase() == relay.PhaseEnded || r.gone == r.size {
			return nil
		}
		if now >= r.nextStats {
			r.refresh(now)
		}
		next, ok := r.core.NextDeadline()
		if !ok || next > r.nextStats {
			next = r.nextStats
		}
		timer.Reset(max(next-s.clock(), 0))
	}
}

// handle applies one inbound message or a seat's end.
func (r *lockstepRoom) handle(in *room.Inbound) {
	m := r.members[in.Seat]
	if in.Err != nil {
		r.disconnected(m, in.Err)
		return
	}
	dm, err := r.s.codec.Decode(in.Msg.Data)
	if err != nil {
		r.s.counters.countMalformed(err)
		return
	}
	if m.removed {
		return
	}
	if err := r.core.Step(in.At, m.id, dm); err != nil {
		r.s.counters.countRejected(err)
		r.log.Debug("relay: message refused", "player", m.id, "type", dm.Type(), "err", err)
	}
}

// disconnected handles a connection that ended: the player leaves the
// match (at a scheduled tick during play, so every client removes it on
// the same tick).
func (r *lockstepRoom) disconnected(m *member, err error) {
	if m.gone {
		return
	}
	m.gone = true
	r.gone++
	r.log.Info("relay: player disconnected", "player", m.id, "err", err)
	r.core.Leave(r.s.clock(), m.id)
}

// output sends what the core produced until it has nothing more: a Leave
// while a Ready is sent (a player that cannot keep up) produces output
// for the next.
func (r *lockstepRoom) output(now time.Duration) {
	for r.core.HasReady() {
		r.outputReady(now)
	}
}

// outputReady sends one Ready's messages, records its events, flushes the
// connections written to together (one batch write for the room), and
// acknowledges the Ready.
func (r *lockstepRoom) outputReady(now time.Duration) {
	rd := r.core.Ready()
	for _, ev := range rd.Events {
		r.event(ev)
	}
	for _, e := range rd.Messages {
		var err error
		r.buf, err = r.s.codec.Append(r.buf[:0], e.Msg)
		if err != nil {
			r.s.sendFailed(&r.sends, r.log, e.Msg, err)
			continue
		}
		if f, ok := e.Msg.(*msg.TickFrame); ok {
			r.s.counters.lateness.Observe(max(now-r.due(f.Tick), 0).Seconds())
		}
		if e.Broadcast {
			for _, m := range r.members {
				r.deliver(m, e.Msg)
			}
		} else if int(e.To) >= 1 && int(e.To) <= len(r.members) {
			r.deliver(r.members[e.To-1], e.Msg)
		}
	}
	r.sendNotices()
	for _, m := range r.touched {
		m.flush = false
		r.flushing = append(r.flushing, m.conn)
	}
	r.flusher.Flush(r.flushing...) // one system call for the room
	clear(r.flushing)
	r.touched, r.flushing = r.touched[:0], r.flushing[:0]
	r.core.Advance()
	for i, m := range r.members {
		if m.removed && !m.gone {
			m.gone = true
			r.gone++
			r.closeSeat(i, "removed from the match")
		}
	}
}

// sendNotices tells each player whose submissions this Ready reported
// late about the latest one and its strikes (the player-facing timing
// feedback; at most one notice per player per Ready).
func (r *lockstepRoom) sendNotices() {
	for i, late := range r.late {
		if !late {
			continue
		}
		r.late[i] = false
		n := &r.notices[i]
		if p, ok := r.core.Player(protocol.PlayerID(i + 1)); ok {
			n.Strikes = uint16(min(p.Strikes, math.MaxUint16))
		}
		var err error
		if r.buf, err = r.s.codec.Append(r.buf[:0], n); err != nil {
			r.s.sendFailed(&r.sends, r.log, n, err, "player", i+1)
			continue
		}
		r.deliver(r.members[i], n)
	}
}

// due is when tick k's frame is scheduled: its window's end plus the
// tick deadline.
func (r *lockstepRoom) due(k uint64) time.Duration {
	return r.core.Start() + time.Duration(k+1)*r.core.TickInterval() + r.core.Deadline()
}

// deliver queues the encoded message in r.buf for m.
func (r *lockstepRoom) deliver(m *member, dm msg.Message) {
	if m.gone {
		return
	}
	err := m.conn.Send(lanes.Of(msg.IsSample(dm)), r.buf)
	if err == nil {
		r.s.counters.messagesOut.Add(1)
		if !m.flush {
			m.flush = true
			r.touched = append(r.touched, m)
		}
		return
	}
	if r.s.sendFailed(&r.sends, r.log, dm, err, "player", m.id) != SendBackpressure || r.core == nil {
		return
	}
	// A peer that does not take the relay's reliable stream fast enough
	// cannot keep up with the game.
	if p, ok := r.core.Player(m.id); ok && p.Status == relay.StatusActive {
		r.log.Warn("relay: player cannot keep up, removing", "player", m.id)
	}
	r.core.Leave(r.s.clock(), m.id)
}

// event counts, logs and forwards a core event.
func (r *lockstepRoom) event(ev relay.Event) {
	r.s.counters.count(ev)
	switch e := ev.(type) {
	case relay.LateSubmission:
		if i := int(e.Player) - 1; i >= 0 && i < r.size {
			r.late[i] = true
			r.notices[i] = msg.LateNotice{Tick: e.Tick, LateByUs: uint32(min(max(e.LateBy, 0)/time.Microsecond, math.MaxUint32))}
		}
	case relay.PlayerRemoved:
		if i := int(e.Player) - 1; i >= 0 && i < r.size {
			r.members[i].removed = true
		}
		r.log.Info("relay: player removed", "player", e.Player, "tick", e.AtTick, "reason", e.Reason)
	case relay.Desync:
		r.log.Warn("relay: desync", "tick", e.Tick)
	case relay.QosAdjustmentEvent:
		r.log.Info("relay: timing adjusted", "tick", e.Tick, "run_ahead", e.NewRunAhead, "deadline", e.NewDeadline, "reason", e.Reason)
	case relay.SeedAgreed:
		r.log.Info("relay: game seed agreed", "start", e.Start)
	}
	if r.s.cfg.OnEvent != nil {
		r.s.cfg.OnEvent(r.name, ev)
	}
}

// refresh publishes the room's figures.
func (r *lockstepRoom) refresh(now time.Duration) {
	r.nextStats = now + statsInterval
	r.published.Store(&lockstepStatus{
		Status:   room.Status{Phase: r.core.Phase().String(), Tick: r.core.NextTick()},
		RunAhead: r.core.RunAhead(),
		Deadline: r.core.Deadline(),
	})
}
