package server

import (
	"slices"
	"strings"
	"time"

	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// RoomView is one room as a live view (the dashboard) shows it: the
// server's generic figures, its connections' and the model's Status.
type RoomView struct {
	Name, NetworkModel, MatchType string
	Size, Players, Spectators     int
	// Age is how long ago the room was created.
	Age time.Duration
	// Status is the model's room's last published status (Phase
	// "waiting" until the room starts).
	Status room.Status
	// Seats are the room's open connections: players, then spectators.
	Seats []SeatView
}

// SeatView is one seated connection.
type SeatView struct {
	Player    int // 0: a spectator
	Spectator bool
	Conn      transport.Stats
}

// RoomViews returns a view of every room, sorted by name. It takes the
// server's lock only to copy the room list; the rooms' statuses and
// connections' figures are read without waiting for their loops.
func (s *Server) RoomViews() []RoomView {
	type open struct {
		h     *hostedRoom
		seats []*seat
	}
	s.mu.Lock()
	now := s.clock()
	list := make([]open, 0, len(s.rooms))
	views := make([]RoomView, 0, len(s.rooms))
	for _, h := range s.rooms {
		o := open{h: h}
		for _, st := range h.seats {
			if st != nil && !st.ended {
				o.seats = append(o.seats, st)
			}
		}
		list = append(list, o)
		phase := "waiting"
		if h.started {
			phase = "starting"
		}
		views = append(views, RoomView{Name: h.name, NetworkModel: h.model.Name, MatchType: h.matchType,
			Size: h.size, Players: h.seated, Spectators: h.spectators, Age: now - h.created,
			Status: room.Status{Phase: phase}})
	}
	s.mu.Unlock()
	for i, o := range list {
		v := &views[i]
		if impl := o.h.impl.Load(); impl != nil {
			v.Status = impl.Status()
		}
		for _, st := range o.seats {
			v.Seats = append(v.Seats, SeatView{Player: int(st.player), Spectator: st.index >= o.h.size, Conn: st.conn.Stats()})
		}
	}
	slices.SortFunc(views, func(a, b RoomView) int { return strings.Compare(a.Name, b.Name) })
	return views
}
