package server

import (
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// pickModel decides the network model of a room a join would create: the
// match type's model if the configuration names one, else the requested
// model if the configuration lets a join choose, else the default. A
// requested model is honoured or the join refused, never silently
// replaced.
func (s *Server) pickModel(j *join.JoinRoom) (*hostedModel, refusal, bool) {
	if j.NetworkModel != "" && s.models[j.NetworkModel] == nil {
		return nil, refuse(join.RefuseModelUnavailable, "this server does not host the %q network model", j.NetworkModel), false
	}
	name, ok := s.cfg.MatchTypes[j.MatchType]
	switch {
	case ok:
	case j.NetworkModel != "" && s.cfg.AllowRequestedModel:
		name = j.NetworkModel
	default:
		name = s.cfg.DefaultModel
	}
	m := s.models[name]
	switch {
	case m == nil:
		return nil, refuse(join.RefuseModelUnavailable, "network model %q is not hosted", name), false
	case j.NetworkModel != "" && j.NetworkModel != name && ok:
		return nil, refuse(join.RefuseModelMismatch, "match type %q plays %s, not %s", j.MatchType, name, j.NetworkModel), false
	case j.NetworkModel != "" && j.NetworkModel != name:
		return nil, refuse(join.RefuseModelMismatch, "this server plays %s, not %s", name, j.NetworkModel), false
	}
	return m, refusal{}, true
}

// join seats c in the room j names, creating the room if needed, and
// queues its JoinAccepted. It returns the room and the seat, whether the
// room is now full and the error of queueing the answer; or a refusal.
func (s *Server) join(c *transport.Conn, j *join.JoinRoom) (h *hostedRoom, st *seat, full bool, ref refusal, answer error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, st, full, ref = s.joinLocked(c, j)
	if h != nil {
		// The answer is queued before the lock is released: whoever
		// fills the room starts it only after taking the lock, so every
		// seat's JoinAccepted is on its connection's ordered lane before
		// the room's first message.
		accepted := &join.JoinAccepted{Player: st.player, RoomSize: uint8(h.size), TickRate: uint16(h.tickRate),
			NetworkModel: h.model.Name, Secret: st.secret}
		answer = s.send(c, accepted)
	}
	return h, st, full, ref, answer
}

// joinLocked is join's choice of room and seat; s.mu is held.
func (s *Server) joinLocked(c *transport.Conn, j *join.JoinRoom) (*hostedRoom, *seat, bool, refusal) {
	if s.closed {
		return nil, nil, false, refuse(join.RefuseShutdown, "the relay is shutting down")
	}
	if j.As != join.AsPlayer {
		h, st, ref := s.joinPlayingLocked(c, j)
		return h, st, false, ref
	}
	h := s.rooms[j.Room]
	if h != nil && h.expired(s.clock()) {
		s.expireLocked(h)
		h = nil
	}
	if h == nil {
		var ref refusal
		if h, ref = s.createLocked(c, j); h == nil {
			return nil, nil, false, ref
		}
	}
	switch {
	case j.NetworkModel != "" && j.NetworkModel != h.model.Name:
		return nil, nil, false, refuse(join.RefuseModelMismatch, "room %q plays %s, not %s", h.name, h.model.Name, j.NetworkModel)
	case j.MatchType != h.matchType:
		if name, ok := s.cfg.MatchTypes[j.MatchType]; ok && name != h.model.Name {
			return nil, nil, false, refuse(join.RefuseModelMismatch, "room %q plays %s, match type %q plays %s", h.name, h.model.Name, j.MatchType, name)
		}
	}
	if h.size != int(j.RoomSize) {
		return nil, nil, false, refuse(join.RefuseSizeMismatch, "room %q is for %d players, not %d", h.name, h.size, j.RoomSize)
	}
	if h.started && h.model.LateJoin && !h.ended {
		st, ref := s.lateJoinLocked(h, c)
		if st == nil {
			return nil, nil, false, ref
		}
		return h, st, false, refusal{}
	}
	if h.started || h.seated == h.size {
		return nil, nil, false, refuse(join.RefuseRoomFull, "room %q has all its %d players", h.name, h.size)
	}
	st := h.seat(c)
	if h.seated == h.size {
		s.startLocked(h)
		return h, st, true, refusal{}
	}
	return h, st, false, refusal{}
}

// createLocked creates the room j names, or refuses: a size beyond the
// model's bound, the server's or the model's room limit, or too many
// waiting rooms created from c's address.
func (s *Server) createLocked(c *transport.Conn, j *join.JoinRoom) (*hostedRoom, refusal) {
	m, ref, ok := s.pickModel(j)
	if !ok {
		return nil, ref
	}
	switch addr := addrKey(c.RemoteAddr()); {
	case s.draining:
		return nil, refuse(join.RefuseShutdown, "the server is draining: it takes no new rooms")
	case int(j.RoomSize) > m.MaxRoomSize:
		return nil, refuse(join.RefuseRoomSize, "a %s room has at most %d players, not %d", m.Name, m.MaxRoomSize, j.RoomSize)
	case s.cfg.MaxGames > 0 && len(s.rooms) >= s.cfg.MaxGames:
		return nil, refuse(join.RefuseServerFull, "server at capacity: the relay hosts its limit of %d games", s.cfg.MaxGames)
	case m.MaxRooms > 0 && m.rooms >= m.MaxRooms:
		return nil, refuse(join.RefuseServerFull, "server at capacity: the relay hosts its limit of %d %s games", m.MaxRooms, m.Name)
	case s.cfg.MaxWaitingPerAddr > 0 && s.waiting[addr] >= s.cfg.MaxWaitingPerAddr:
		return nil, refuse(join.RefuseTooManyRooms, "%s already waits for players in %d rooms", addr, s.waiting[addr])
	default:
		h := s.newRoomLocked(j, m, addr)
		return h, refusal{}
	}
}
