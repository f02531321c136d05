package server

import (
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
	"github.com/tickwire/tickwire/wire"
)

// seatReader takes a seat's messages on the transport's read goroutine
// (a transport.MessageHandler): it stamps each with the server clock,
// drops what exceeds the connection's rate limit, and queues the rest in
// the room's inbox once the room has started (a message before the start
// has no match to go to and is dropped), a Leave as the seat's end. The
// inbox wakes the room once per read batch. When the connection ends,
// the seat ends (seatEnded).
type seatReader struct {
	s     *Server
	h     *hostedRoom
	st    *seat
	limit bucket // owned by the handler's calls, which never overlap
}

// readSeat hands st's messages to the room from now on.
func (s *Server) readSeat(h *hostedRoom, st *seat) {
	rate, burst := s.cfg.MessageRate, s.cfg.MessageBurst
	if h.model.MessageRate > 0 {
		rate = h.model.MessageRate
	}
	if h.model.MessageBurst > 0 {
		burst = h.model.MessageBurst
	}
	st.conn.SetHandler(&seatReader{s: s, h: h, st: st, limit: newBucket(rate, burst, s.clock())})
}

// HandleMessage queues a message for the room.
func (r *seatReader) HandleMessage(_ *transport.Conn, tm transport.Message) transport.Waker {
	if r.h.ctx.Err() != nil { // the room is over
		return nil
	}
	at := r.s.clock()
	if !r.limit.take(at) {
		r.s.counters.rateLimited.Add(1)
		return nil
	}
	in := r.h.inbox.Load()
	if in == nil {
		return nil
	}
	r.s.counters.messagesIn.Add(1)
	if wire.NewReader(tm.Data).Type() == join.TypeLeave {
		in.Put(room.Inbound{Seat: r.st.index, At: at, Err: room.ErrLeft})
	} else {
		in.Put(room.Inbound{Seat: r.st.index, At: at, Msg: tm})
	}
	return in
}

// HandleEnd ends the seat, unless the server is closed (Close ends every
// room and waits for nothing more).
func (r *seatReader) HandleEnd(_ *transport.Conn, err error) {
	s := r.s
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.wg.Add(1) // seatEnded closes the connection on the server's group
	}
	s.mu.Unlock()
	if closed {
		return
	}
	defer s.wg.Done()
	s.seatEnded(r.h, r.st, err)
}
