package server

import (
	"errors"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/relay"
	"github.com/tickwire/tickwire/relay/msg"
	"github.com/tickwire/tickwire/transport"
)

// room is one game: its seats, and once full, its relay core. One
// goroutine (run) drives it; per-connection readers decode messages and
// queue them in the inbox, and run takes everything queued at once, feeds
// the core, and sends what the core produced with one flush per
// connection: the room's connections form one poll group.
type room struct {
	s    *Server
	name string
	size int
	log  *slog.Logger

	// Guarded by s.mu.
	members []*member // seats by player index; nil = free before start
	seated  int       // members whose connection is still open
	started bool      // every seat was taken; seats are fixed from now on

	inbox     chan event
	done      chan struct{} // closed when run returns
	published atomic.Pointer[RoomStats]

	// Owned by run.
	core      *relay.Core
	notices   []msg.LateNotice // by player index, for this Ready
	late      []bool
	buf       []byte
	touched   []*member
	flushing  []*transport.Conn
	flusher   transport.FlushGroup
	nextStats time.Duration
}

// member is a seat and its connection.
type member struct {
	id   protocol.PlayerID
	conn *transport.Conn
	// Owned by run.
	gone, removed     bool   // connection ended; removed from the match
	bytesIn, bytesOut uint64 // wire bytes already counted
	dgIn, dgOut       uint64 // datagrams already counted
	flush             bool
}

// event is what a reader (or the join) tells run.
type event struct {
	m      *member
	at     time.Duration // relay clock at receipt
	msg    msg.Message
	err    error // the connection ended
	joined bool  // a seat was taken
}

func (s *Server) newRoom(name string, size int) *room {
	r := &room{s: s, name: name, size: size, log: s.cfg.Logger.With("room", name),
		members: make([]*member, size), inbox: make(chan event, inboxPerPlayer*size), done: make(chan struct{})}
	r.published.Store(&RoomStats{Name: name, Size: size, Phase: "waiting"})
	return r
}

// post queues an event for run, or drops it if the room has ended.
func (r *room) post(ev event) {
	select {
	case r.inbox <- ev:
	case <-r.done:
	}
}

// read is a member's reader: it decodes each message and queues it.
func (r *room) read(m *member) {
	defer r.s.wg.Done()
	c := &r.s.counters
	for {
		tm, err := m.conn.Receive(r.s.ctx)
		if err != nil {
			r.post(event{m: m, err: err})
			return
		}
		at := r.s.clock()
		dm, err := r.s.codec.Decode(tm.Data)
		if err != nil {
			c.countMalformed(err)
			continue
		}
		c.messagesIn.Add(1)
		select {
		case r.inbox <- event{m: m, at: at, msg: dm}:
		case <-r.done:
			return
		}
	}
}

// run drives the room until its game ends, every connection is gone or
// the server closes.
func (r *room) run() {
	s := r.s
	defer s.wg.Done()
	defer r.end()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		// While the game plays, messages wait in the inbox for the next
		// deadline: they carry their arrival time, and nothing they cause
		// is due before it. Before play the seed exchange and calibration
		// answer messages as they come.
		inbox := r.inbox
		if r.core != nil && r.core.Phase() == relay.PhasePlaying {
			inbox = nil
		}
		select {
		case ev := <-inbox:
			r.handle(ev)
		case <-timer.C:
		case <-s.ctx.Done():
			return
		}
		for more := true; more; {
			select {
			case ev := <-r.inbox:
				r.handle(ev)
			default:
				more = false
			}
		}
		now := s.clock()
		if r.core == nil {
			started, err := r.start(now)
			if err != nil || (!started && r.empty()) {
				return
			}
			if !started {
				continue
			}
		}
		r.core.Tick(now)
		r.output(now)
		if r.core.Phase() == relay.PhaseEnded || r.empty() {
			return
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

// start creates the core once every seat is taken.
func (r *room) start(now time.Duration) (bool, error) {
	r.s.mu.Lock()
	started := r.started
	r.s.mu.Unlock()
	if !started {
		return false, nil
	}
	ids := make([]protocol.PlayerID, r.size)
	for i := range ids {
		ids[i] = protocol.PlayerID(i + 1)
	}
	core, err := relay.New(r.s.cfg.Relay, ids, now)
	if err != nil {
		r.log.Error("relay: cannot start game", "err", err)
		return false, err
	}
	r.core = core
	r.notices, r.late = make([]msg.LateNotice, r.size), make([]bool, r.size)
	r.s.counters.gamesStarted.Add(1)
	r.log.Info("relay: game starting", "players", r.size)
	for _, m := range r.members {
		if m.gone {
			r.core.Leave(now, m.id)
		}
	}
	return true, nil
}

// handle applies one event.
func (r *room) handle(ev event) {
	m := ev.m
	switch {
	case ev.joined:
	case ev.err != nil:
		r.disconnected(m, ev.err)
	case r.core != nil && !m.removed:
		if err := r.core.Step(ev.at, m.id, ev.msg); err != nil {
			r.s.counters.countRejected(err)
			r.log.Debug("relay: message refused", "player", m.id, "type", ev.msg.Type(), "err", err)
		}
	}
}

// disconnected handles a connection that ended: before the game a seat
// is freed, during it the player leaves the match.
func (r *room) disconnected(m *member, err error) {
	if m.gone {
		return
	}
	s := r.s
	s.mu.Lock()
	m.gone = true
	r.seated--
	if !r.started {
		r.members[m.id-1] = nil
	}
	s.mu.Unlock()
	r.countBytes(m)
	s.closeConn(m.conn, "") // release what the ended connection holds
	r.log.Info("relay: player disconnected", "player", m.id, "err", err)
	if r.core != nil {
		r.core.Leave(s.clock(), m.id)
	}
}

// empty reports whether every seat's connection is gone.
func (r *room) empty() bool {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.seated == 0
}

// output sends what the core produced, records its events, flushes the
// connections written to together (one batch write for the room), and
// acknowledges the core's Ready.
func (r *room) output(now time.Duration) {
	if !r.core.HasReady() {
		return
	}
	rd := r.core.Ready()
	for _, ev := range rd.Events {
		r.event(ev)
	}
	for _, e := range rd.Messages {
		var err error
		r.buf, err = r.s.codec.Append(r.buf[:0], e.Msg)
		if err != nil {
			r.log.Error("relay: cannot encode", "type", e.Msg.Type(), "err", err)
			continue
		}
		if f, ok := e.Msg.(*msg.TickFrame); ok {
			r.s.counters.lateness.observe(max(now-r.due(f.Tick), 0))
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
	for _, m := range r.members {
		if m.removed && !m.gone {
			m.gone = true
			r.s.mu.Lock()
			r.seated--
			r.s.mu.Unlock()
			r.countBytes(m)
			r.s.closeConn(m.conn, "removed from the match")
		}
	}
}

// sendNotices tells each player whose submissions this Ready reported
// late about the latest one and its strikes (the player-facing timing
// feedback; at most one notice per player per Ready).
func (r *room) sendNotices() {
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
		if r.buf, err = r.s.codec.Append(r.buf[:0], n); err == nil {
			r.deliver(r.members[i], n)
		}
	}
}

// due is when tick k's frame is scheduled: its window's end plus the
// tick deadline.
func (r *room) due(k uint64) time.Duration {
	return r.core.Start() + time.Duration(k+1)*r.core.TickInterval() + r.core.Deadline()
}

// deliver queues the encoded message in r.buf for m.
func (r *room) deliver(m *member, dm msg.Message) {
	if m == nil || m.gone {
		return
	}
	err := m.conn.Send(Lane(dm), r.buf)
	switch {
	case err == nil:
		r.s.counters.messagesOut.Add(1)
		if !m.flush {
			m.flush = true
			r.touched = append(r.touched, m)
		}
	case errors.Is(err, transport.ErrBackpressure):
		// A peer that does not take the relay's reliable stream fast
		// enough cannot keep up with the game.
		r.log.Warn("relay: player cannot keep up, removing", "player", m.id)
		r.core.Leave(r.s.clock(), m.id)
	}
}

// event counts, logs and forwards a core event.
func (r *room) event(ev relay.Event) {
	r.s.counters.count(ev)
	switch e := ev.(type) {
	case relay.LateSubmission:
		if i := int(e.Player) - 1; i >= 0 && i < r.size {
			r.late[i] = true
			r.notices[i] = msg.LateNotice{Tick: e.Tick, LateByUs: uint32(min(max(e.LateBy, 0)/time.Microsecond, math.MaxUint32))}
		}
	case relay.PlayerRemoved:
		if m := r.members[e.Player-1]; m != nil {
			m.removed = true
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

// countBytes adds m's wire bytes and datagrams since the last count to
// the totals.
func (r *room) countBytes(m *member) {
	st := m.conn.Stats()
	r.s.counters.bytesIn.Add(st.BytesReceived - m.bytesIn)
	r.s.counters.bytesOut.Add(st.BytesSent - m.bytesOut)
	r.s.counters.datagramsIn.Add(st.PacketsReceived - m.dgIn)
	r.s.counters.datagramsOut.Add(st.PacketsSent - m.dgOut)
	m.bytesIn, m.bytesOut = st.BytesReceived, st.BytesSent
	m.dgIn, m.dgOut = st.PacketsReceived, st.PacketsSent
}

// refresh publishes the room's figures and counts wire bytes.
func (r *room) refresh(now time.Duration) {
	r.nextStats = now + statsInterval
	for _, m := range r.members {
		if m != nil && !m.gone {
			r.countBytes(m)
		}
	}
	st := &RoomStats{Name: r.name, Size: r.size, Phase: "waiting"}
	if r.core != nil {
		st.Phase = r.core.Phase().String()
		st.Tick = r.core.NextTick()
		st.RunAhead = r.core.RunAhead()
		st.Deadline = r.core.Deadline()
	}
	r.published.Store(st)
}

// end removes the room from the server and closes the connections left.
func (r *room) end() {
	close(r.done)
	s := r.s
	s.mu.Lock()
	delete(s.rooms, r.name)
	started := r.started
	var open []*member
	for _, m := range r.members {
		if m != nil && !m.gone {
			m.gone = true
			open = append(open, m)
		}
	}
	r.seated = 0
	s.mu.Unlock()
	for _, m := range open {
		r.countBytes(m)
		s.closeConn(m.conn, "game over")
	}
	if started {
		s.counters.gamesEnded.Add(1)
	}
	r.log.Info("relay: room closed")
}
