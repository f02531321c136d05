package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// hostedRoom is a room as the server keeps it: its seats while it waits
// for players, then the model's room.Room that plays the match. Its
// fields are guarded by Server.mu unless noted.
type hostedRoom struct {
	name, matchType string
	model           *hostedModel
	size, tickRate  int
	creator         string // the creator's address, while the room waits
	log             *slog.Logger

	seats      []*seat // by player index, grown as players join; nil = free; spectators from size up
	seated     int     // player seats whose connection has not ended
	spectators int     // spectator seats whose connection has not ended
	started    bool    // every seat was taken; from now on a player seat is only taken again by a rejoin
	ended      bool
	expires    time.Duration // server clock; waiting rooms only
	created    time.Duration // server clock
	timer      *time.Timer   // expiry, while the room waits

	ctx    context.Context // the room's life: its seats' messages are dropped once it ends
	cancel context.CancelFunc
	inbox  atomic.Pointer[room.Inbox] // set when the room starts
	impl   atomic.Pointer[roomImpl]   // set once the model's room exists
}

// roomImpl holds a model's room (an interface in an atomic pointer).
type roomImpl struct{ room.Room }

// seat is a seated connection: a player's, or a spectator's (player 0).
type seat struct {
	index  int
	player protocol.PlayerID
	conn   *transport.Conn
	secret join.RejoinSecret // the player's rejoin credential; zero if the model takes no rejoins
	// identity is the player key of the connection's connect token (nil
	// without one): a rejoin must present a token for the same key.
	identity []byte
	ended    bool // the connection ended (guarded by Server.mu)
	late     bool // a new player seated in a playing room (room.Model.LateJoin)
}

// newRoomLocked creates a waiting room for j's first joiner, created from
// addr, and arms its expiry.
func (s *Server) newRoomLocked(j *join.JoinRoom, m *hostedModel, addr string) *hostedRoom {
	h := &hostedRoom{name: j.Room, matchType: j.MatchType, model: m, size: int(j.RoomSize), tickRate: m.TickRate,
		creator: addr, log: s.cfg.Logger.With("room", j.Room, "network_model", m.Name)}
	if h.tickRate <= 0 {
		h.tickRate = s.cfg.TickRate
	}
	h.created = s.clock()
	h.ctx, h.cancel = context.WithCancel(s.ctx)
	s.rooms[h.name] = h
	s.waiting[addr]++
	m.rooms++
	if s.cfg.WaitingTimeout > 0 {
		h.expires = s.clock() + s.cfg.WaitingTimeout
		h.timer = time.AfterFunc(s.cfg.WaitingTimeout, func() { s.checkExpiry(h) })
	}
	return h
}

// seat takes the first free seat for c, with a fresh rejoin secret if
// the model takes rejoins.
func (h *hostedRoom) seat(c *transport.Conn) *seat {
	i := 0
	for i < len(h.seats) && h.seats[i] != nil {
		i++
	}
	st := &seat{index: i, player: protocol.PlayerID(i + 1), conn: c, identity: tokenPlayer(c)}
	if h.model.Rejoin {
		rand.Read(st.secret[:]) // never fails (crypto/rand)
	}
	if i == len(h.seats) {
		h.seats = append(h.seats, st)
	} else {
		h.seats[i] = st
	}
	h.seated++
	return st
}

// expired reports whether a waiting room is past its expiry.
func (h *hostedRoom) expired(now time.Duration) bool {
	return !h.started && h.expires > 0 && now >= h.expires
}

// checkExpiry expires h if it still waits and its time is up on the
// server clock, or re-arms the timer for the rest.
func (s *Server) checkExpiry(h *hostedRoom) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.started || h.ended {
		return
	}
	if now := s.clock(); !h.expired(now) {
		h.timer.Reset(h.expires - now)
		return
	}
	s.expireLocked(h)
}

// ShuttingDown is the reason a client is told when the server's drain or
// shutdown ends its room (and the outcome its match record says).
const ShuttingDown = "server shutting down"

// expireLocked ends a waiting room that did not fill in time.
func (s *Server) expireLocked(h *hostedRoom) {
	s.counters.roomsExpired.Add(1)
	h.log.Info("relay: waiting room expired", "players", h.seated, "size", h.size)
	s.closeWaitingLocked(h, fmt.Sprintf("room %q expired: not full within %v", h.name, s.cfg.WaitingTimeout))
}

// closeWaitingLocked ends waiting room h, telling its seats reason.
func (s *Server) closeWaitingLocked(h *hostedRoom, reason string) {
	for _, st := range h.seats {
		if st != nil && !st.ended {
			st.ended = true
			s.countBytes(st.conn)
			s.closeConn(st.conn, reason)
		}
	}
	h.seated = 0
	s.endLocked(h)
}

// endLocked removes h from the server; its seats' messages are dropped
// from now on.
func (s *Server) endLocked(h *hostedRoom) {
	if h.ended {
		return
	}
	h.ended = true
	if h.timer != nil {
		h.timer.Stop()
	}
	if !h.started {
		s.unwaitLocked(h)
	}
	if s.rooms[h.name] == h {
		delete(s.rooms, h.name)
	}
	h.model.rooms--
	h.cancel()
}

// unwaitLocked takes h off its creator's count of waiting rooms.
func (s *Server) unwaitLocked(h *hostedRoom) {
	if s.waiting[h.creator]--; s.waiting[h.creator] <= 0 {
		delete(s.waiting, h.creator)
	}
}

// startLocked marks a full room started: its seats are fixed and their
// messages are queued from now on.
func (s *Server) startLocked(h *hostedRoom) {
	h.started = true
	if h.timer != nil {
		h.timer.Stop()
	}
	s.unwaitLocked(h)
	h.inbox.Store(room.NewInbox())
}

// start runs the model's room of a full room h.
func (s *Server) start(h *hostedRoom) {
	s.mu.Lock()
	seats := make([]room.Seat, len(h.seats))
	for i, st := range h.seats {
		seats[i] = room.Seat{Player: st.player, Conn: st.conn}
	}
	s.mu.Unlock()
	p := room.Params{Name: h.name, MatchType: h.matchType, Seats: seats, Inbox: h.inbox.Load(), TickRate: h.tickRate,
		Clock: s.clock, Logger: h.log, CloseSeat: func(i int, reason string) { s.closeSeat(h, i, reason) },
		Counters: &h.model.counters}
	var ev MatchEvent
	ended := false
	p.Result = func(st room.Status) []byte {
		ended = true
		return s.matchEnded(h, ev, st)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.end(h)
		r, err := h.model.New(p)
		if err != nil {
			h.log.Error("relay: cannot start game", "err", err)
			return
		}
		h.impl.Store(&roomImpl{r})
		s.counters.gamesStarted.Add(1)
		h.log.Info("relay: game starting", "players", h.size)
		ev = s.matchStarted(h)
		if err := r.Run(h.ctx); err != nil && h.ctx.Err() == nil {
			h.log.Warn("relay: game ended with an error", "err", err)
		}
		s.counters.gamesEnded.Add(1)
		if !ended { // a Room that is not a Driver: no result to send
			s.matchEnded(h, ev, r.Status())
		}
	}()
}

// closeSeat closes seat i's connection for a model's room.
func (s *Server) closeSeat(h *hostedRoom, i int, reason string) {
	s.mu.Lock()
	var c *transport.Conn
	if i >= 0 && i < len(h.seats) && h.seats[i] != nil {
		c = h.seats[i].conn
	}
	s.mu.Unlock()
	if c != nil {
		s.closeConn(c, reason)
	}
}

// end removes a room whose match is over and closes its connections.
func (s *Server) end(h *hostedRoom) {
	s.mu.Lock()
	var open []*seat
	for _, st := range h.seats {
		if st != nil && !st.ended {
			st.ended = true
			open = append(open, st)
		}
	}
	h.seated, h.spectators = 0, 0
	s.endLocked(h)
	s.mu.Unlock()
	reason := "game over"
	if h.ctx.Err() != nil { // the server closed the room: its record says shutdown
		reason = ShuttingDown
	}
	for _, st := range open {
		s.countBytes(st.conn)
		s.closeConn(st.conn, reason)
	}
	h.log.Info("relay: room closed")
}

// seatEnded handles a seat whose connection ended: before the start the
// seat is freed (and an empty room ends), after it the room learns that
// the player (or spectator) is gone.
func (s *Server) seatEnded(h *hostedRoom, st *seat, err error) {
	s.mu.Lock()
	first := !st.ended
	started := h.started
	if first {
		s.leaveLocked(h, st, err)
	}
	if !started && first {
		h.seats[st.index] = nil
		if h.seated == 0 {
			s.endLocked(h)
		}
	}
	s.mu.Unlock()
	if !first {
		return
	}
	s.countBytes(st.conn)
	s.closeConn(st.conn, "") // release what the ended connection holds
	if !started {
		h.log.Info("relay: player left before the start", "player", st.player, "err", err)
	}
}

// leaveLocked marks st's connection ended and, once the room plays,
// posts its end to the room (the caller counts its bytes and closes it). Posting under Server.mu
// orders the end before anything a later connection of the seat posts.
func (s *Server) leaveLocked(h *hostedRoom, st *seat, err error) {
	st.ended = true
	if st.index >= h.size {
		h.spectators--
	} else {
		h.seated--
	}
	if h.started {
		h.inbox.Load().Post(room.Inbound{Seat: st.index, At: s.clock(), Err: err})
	}
}

// countBytes adds an ended connection's wire bytes and datagrams to the
// totals.
func (s *Server) countBytes(c *transport.Conn) {
	st := c.Stats()
	s.counters.bytesIn.Add(st.BytesReceived)
	s.counters.bytesOut.Add(st.BytesSent)
	s.counters.datagramsIn.Add(st.PacketsReceived)
	s.counters.datagramsOut.Add(st.PacketsSent)
	s.counters.redundancyBytes.Add(st.RedundancyBytes)
	s.counters.recovered.Add(st.Recovered)
}
