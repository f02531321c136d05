package server

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"errors"

	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// errTakenOver ends a seat's connection in its room when the player
// rejoined from another.
var errTakenOver = errors.New("server: the player rejoined from another connection")

// joinPlayingLocked seats c in the playing room j names as a spectator
// or as a player back in its seat, if the room's model takes them
// (room.Model.MaxSpectators, room.Model.Rejoin); or refuses.
func (s *Server) joinPlayingLocked(c *transport.Conn, j *join.JoinRoom) (*hostedRoom, *seat, refusal) {
	h := s.rooms[j.Room]
	switch {
	case h == nil || !h.started || h.ended:
		return nil, nil, refuse(join.RefuseNotPlaying, "room %q is not playing", j.Room)
	case j.NetworkModel != "" && j.NetworkModel != h.model.Name:
		return nil, nil, refuse(join.RefuseModelMismatch, "room %q plays %s, not %s", h.name, h.model.Name, j.NetworkModel)
	case j.As == join.AsSpectator:
		return s.spectateLocked(h, c)
	default:
		return s.rejoinLocked(h, c, j)
	}
}

// spectateLocked gives c a spectator seat of h: the first ended one, or
// a new one while h has fewer than its model's MaxSpectators.
func (s *Server) spectateLocked(h *hostedRoom, c *transport.Conn) (*hostedRoom, *seat, refusal) {
	switch {
	case h.model.MaxSpectators <= 0:
		return nil, nil, refuse(join.RefuseUnsupported, "a %s room takes no spectators", h.model.Name)
	case h.spectators >= h.model.MaxSpectators:
		return nil, nil, refuse(join.RefuseRoomFull, "room %q has its %d spectators", h.name, h.model.MaxSpectators)
	}
	i := h.size
	for i < len(h.seats) && !h.seats[i].ended {
		i++
	}
	st := &seat{index: i, conn: c}
	if i == len(h.seats) {
		h.seats = append(h.seats, st)
	} else {
		h.seats[i] = st
	}
	h.spectators++
	return h, st, refusal{}
}

// rejoinLocked gives c the seat of j's player if j carries the seat's
// secret (compared in constant time) and, when the seat was taken with a
// connect token, c's token names the same player key. A seat whose connection has not
// ended yet (a client that lost its network and came back before the
// server noticed) is taken over: the old connection is closed.
func (s *Server) rejoinLocked(h *hostedRoom, c *transport.Conn, j *join.JoinRoom) (*hostedRoom, *seat, refusal) {
	if !h.model.Rejoin {
		return nil, nil, refuse(join.RefuseUnsupported, "a %s room takes no rejoins", h.model.Name)
	}
	i := int(j.Player) - 1
	if i < 0 || i >= h.size || subtle.ConstantTimeCompare(h.seats[i].secret[:], j.Secret[:]) != 1 {
		return nil, nil, refuse(join.RefuseRejoinDenied, "room %q has no seat for that player and secret", h.name)
	}
	old := h.seats[i]
	if old.identity != nil && !bytes.Equal(old.identity, tokenPlayer(c)) {
		return nil, nil, refuse(join.RefuseRejoinDenied, "the seat was taken with a connect token for another player key")
	}
	if !old.ended {
		s.leaveLocked(h, old, errTakenOver)
		s.countBytesLater(old.conn, "rejoined from another connection")
	}
	st := &seat{index: i, player: old.player, conn: c, secret: old.secret, identity: old.identity}
	h.seats[i] = st
	h.seated++
	h.log.Info("relay: player rejoins", "player", st.player, "peer", c.RemoteAddr())
	return h, st, refusal{}
}

// lateJoinLocked seats c as a new player of the playing room h, whose
// model takes late joiners (room.Model.LateJoin): in the lowest seat
// whose connection ended, with a player id and secret of its own; or
// refuses when every seat is taken.
func (s *Server) lateJoinLocked(h *hostedRoom, c *transport.Conn) (*seat, refusal) {
	i := 0
	for i < h.size && !h.seats[i].ended {
		i++
	}
	if i == h.size {
		return nil, refuse(join.RefuseRoomFull, "room %q has all its %d players", h.name, h.size)
	}
	st := &seat{index: i, player: h.seats[i].player, conn: c, identity: tokenPlayer(c), late: true}
	if h.model.Rejoin {
		rand.Read(st.secret[:]) // never fails (crypto/rand)
	}
	h.seats[i] = st
	h.seated++
	h.log.Info("relay: player joins late", "player", st.player, "peer", c.RemoteAddr())
	return st, refusal{}
}

// tokenPlayer is the player key of c's connect token, or nil.
func tokenPlayer(c *transport.Conn) []byte {
	if sec, ok := c.Security(); ok && sec.Token != nil {
		return sec.Token.Player
	}
	return nil
}

// countBytesLater counts an ended connection's bytes and closes it, in
// the background (not under Server.mu).
func (s *Server) countBytesLater(c *transport.Conn, reason string) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.countBytes(c)
		c.CloseWithReason(reason)
	}()
}

// postJoined hands a connection seated after the start to its room,
// unless a later join took the seat meanwhile. It runs after the
// JoinAccepted is queued, so the room's first message follows it.
func (s *Server) postJoined(h *hostedRoom, st *seat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.ended || h.seats[st.index] != st {
		return
	}
	h.inbox.Load().Post(room.Inbound{Seat: st.index, At: s.clock(), Joined: &room.Seat{Player: st.player, Conn: st.conn}})
}
