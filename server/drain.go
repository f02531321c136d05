package server

import (
	"context"
	"time"
)

// Drain stops the server taking new rooms: a join that would create a
// room is refused as shutting down ("the server is draining"), and rooms
// still waiting for players close now, their players told "server shutting
// down". Playing rooms go on (rejoins and
// spectators included) until they end. Drain returns at once; Wait waits
// for the rooms.
func (s *Server) Drain() {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	s.CloseWaiting(ShuttingDown + ": draining, no new matches")
}

// CloseWaiting ends every room still waiting for players, telling their
// players reason (a host that stops waiting says why).
func (s *Server) CloseWaiting(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.rooms {
		if !h.started {
			h.log.Info("relay: waiting room closed", "players", h.seated, "size", h.size, "reason", reason)
			s.closeWaitingLocked(h, reason)
		}
	}
}

// Draining reports whether Drain was called.
func (s *Server) Draining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draining
}

// Rooms is the number of rooms, waiting or playing.
func (s *Server) Rooms() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rooms)
}

// WaitRooms waits until the server has no room or ctx ends; it reports
// whether the rooms all ended. It polls every poll (0: 100 ms).
func (s *Server) WaitRooms(ctx context.Context, poll time.Duration) bool {
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for s.Rooms() > 0 {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}
