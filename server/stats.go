package server

import (
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/transport"
)

// Stats is a snapshot of the server's figures. Counters are cumulative
// since New; ActiveGames, Players and Rooms describe the moment.
type Stats struct {
	ActiveGames  int // rooms playing (every seat taken), of every model
	WaitingRooms int // rooms still filling
	Players      int // connections seated in a room

	GamesStarted, GamesEnded uint64
	JoinsRefused             uint64 // all reasons
	// Refused counts refused joins by reason (msg.RefusalReason).
	Refused      [msg.NumRefusalReasons]uint64
	RoomsExpired uint64 // waiting rooms that did not fill in time
	// RateLimited counts messages dropped by the per-connection inbound
	// rate limit before they reached a room.
	RateLimited             uint64
	LateOrders              uint64 // submissions that missed their tick
	Strikes                 uint64 // anti-lag-switch strikes
	Removals                uint64 // players removed from a match
	QosAdjustments          uint64 // run-ahead/deadline changes
	Desyncs                 uint64 // sync checks whose hashes disagreed
	HostStalls              uint64 // times a game's relay core found the relay itself had stalled
	MessagesIn, MessagesOut uint64 // messages queued for rooms; relay messages sent
	Malformed               uint64 // messages that did not decode (join and lockstep)
	Rejected                uint64 // messages the relay core refused
	// SendErrors counts the messages that could not be sent, by cause;
	// the first of each cause is logged once per room (and once for the
	// server's answers to joins).
	SendErrors                [NumSendCauses]uint64
	BytesIn, BytesOut         uint64 // datagram bytes of room connections
	DatagramsIn, DatagramsOut uint64 // datagrams of room connections

	// BroadcastLateness is how late tick frames left against the tick
	// schedule (window end plus deadline), over every game, in seconds.
	BroadcastLateness metrics.Cumulative

	// MalformedByKind and RejectedByKind split Malformed and Rejected by
	// the sentinel error of the failure (see kinds.go): malformed
	// "unknown_type", "malformed", "range", "orders", "other"; rejected
	// "phase", "tick", "duplicate", "unexpected", "bad_pong",
	// "bad_reveal", "removed", "unknown_player", "other". Every kind is
	// present, zero or not.
	MalformedByKind, RejectedByKind map[string]uint64
	// TokenRefusals counts joins refused for their connect token
	// (Config.RequireToken), by reason: "missing", "wrong_room".
	TokenRefusals map[string]uint64

	Rooms []RoomStats
	// Models describes each hosted network model, lockstep first, then
	// by name.
	Models []ModelStats
}

// ModelStats are one network model's figures.
type ModelStats struct {
	Name         string
	ActiveGames  int // rooms playing
	WaitingRooms int // rooms still filling
	Players      int // connections seated in its rooms
	// Metrics are the model's own figures (room.Model.Metrics).
	Metrics []admin.Metric
}

// latenessBounds are the upper bounds of the lateness buckets in
// seconds, finer around the 2 ms capacity limit of "bench relay"; the
// table is never modified.
var latenessBounds = []float64{
	50e-6, 100e-6, 250e-6, 500e-6, 750e-6, 1e-3, 1.5e-3, 2e-3, 3e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3,
}

// RoomStats describes one room; figures of a playing room are refreshed
// about once a second.
type RoomStats struct {
	Name         string
	NetworkModel string
	MatchType    string
	Size         int // players the game needs
	Players      int // seated (connections not closed)
	Spectators   int // spectators watching (connections not closed)
	Phase        string
	Tick         uint64 // lockstep: next tick to broadcast
	RunAhead     uint8  // lockstep only
	Deadline     time.Duration
}

// counters are the server's cumulative figures, updated by the rooms and
// read concurrently by Stats.
type counters struct {
	gamesStarted, gamesEnded            atomic.Uint64
	refused                             [msg.NumRefusalReasons]atomic.Uint64
	roomsExpired, rateLimited           atomic.Uint64
	lateOrders, strikes, removals       atomic.Uint64
	qosAdjustments, desyncs, hostStalls atomic.Uint64
	messagesIn, messagesOut             atomic.Uint64
	malformed, rejected                 atomic.Uint64
	bytesIn, bytesOut                   atomic.Uint64
	datagramsIn, datagramsOut           atomic.Uint64
	sendErrors                          [NumSendCauses]atomic.Uint64
	lateness                            *metrics.Bounded // seconds
	kinds                               kindCounts
	tokens                              tokenCounts
}

// count records an event in the counters.
func (c *counters) count(ev relay.Event) {
	switch ev.(type) {
	case relay.LateSubmission:
		c.lateOrders.Add(1)
	case relay.Strike:
		c.strikes.Add(1)
	case relay.PlayerRemoved:
		c.removals.Add(1)
	case relay.QosAdjustmentEvent:
		c.qosAdjustments.Add(1)
	case relay.Desync:
		c.desyncs.Add(1)
	case relay.HostStall:
		c.hostStalls.Add(1)
	}
}

// Stats returns a snapshot of the server's figures. It is safe to call
// from any goroutine; it takes the server's lock to list the rooms, and
// reads each open connection's byte counts.
func (s *Server) Stats() Stats {
	c := &s.counters
	st := Stats{
		GamesStarted:   c.gamesStarted.Load(),
		GamesEnded:     c.gamesEnded.Load(),
		RoomsExpired:   c.roomsExpired.Load(),
		RateLimited:    c.rateLimited.Load(),
		LateOrders:     c.lateOrders.Load(),
		Strikes:        c.strikes.Load(),
		Removals:       c.removals.Load(),
		QosAdjustments: c.qosAdjustments.Load(),
		Desyncs:        c.desyncs.Load(),
		HostStalls:     c.hostStalls.Load(),
		MessagesIn:     c.messagesIn.Load(),
		MessagesOut:    c.messagesOut.Load(),
		Malformed:      c.malformed.Load(),
		Rejected:       c.rejected.Load(),
		BytesIn:        c.bytesIn.Load(),
		BytesOut:       c.bytesOut.Load(),
		DatagramsIn:    c.datagramsIn.Load(),
		DatagramsOut:   c.datagramsOut.Load(),

		BroadcastLateness: c.lateness.Snapshot(),
	}
	for i := range c.sendErrors {
		st.SendErrors[i] = c.sendErrors[i].Load()
	}
	for i := range c.refused {
		st.Refused[i] = c.refused[i].Load()
		st.JoinsRefused += st.Refused[i]
	}
	byModel := map[string]*ModelStats{}
	for name := range s.models {
		byModel[name] = &ModelStats{Name: name}
	}
	var open []*transport.Conn // seated connections, whose bytes are counted when they end
	st.MalformedByKind, st.RejectedByKind = c.kinds.snapshot()
	st.TokenRefusals = c.tokens.snapshot()
	s.mu.Lock()
	for _, h := range s.rooms {
		rs := RoomStats{Name: h.name, NetworkModel: h.model.Name, MatchType: h.matchType, Size: h.size, Players: h.seated, Spectators: h.spectators, Phase: "waiting"}
		ms := byModel[h.model.Name]
		if h.started {
			st.ActiveGames++
			ms.ActiveGames++
			rs.Phase = "starting"
			if impl := h.impl.Load(); impl != nil {
				status := impl.Status()
				rs.Phase, rs.Tick = status.Phase, status.Tick
				if lr, ok := impl.Room.(*lockstepRoom); ok {
					p := lr.published.Load()
					rs.RunAhead, rs.Deadline = p.RunAhead, p.Deadline
				}
			}
		} else {
			st.WaitingRooms++
			ms.WaitingRooms++
		}
		st.Players += h.seated
		ms.Players += h.seated
		for _, seat := range h.seats {
			if seat != nil && !seat.ended {
				open = append(open, seat.conn)
			}
		}
		st.Rooms = append(st.Rooms, rs)
	}
	s.mu.Unlock()
	for _, c := range open {
		cs := c.Stats()
		st.BytesIn += cs.BytesReceived
		st.BytesOut += cs.BytesSent
		st.DatagramsIn += cs.PacketsReceived
		st.DatagramsOut += cs.PacketsSent
	}
	slices.SortFunc(st.Rooms, func(a, b RoomStats) int { return strings.Compare(a.Name, b.Name) })
	for _, ms := range byModel {
		if m := s.models[ms.Name]; m.Metrics != nil {
			ms.Metrics = m.Metrics()
		}
		st.Models = append(st.Models, *ms)
	}
	slices.SortFunc(st.Models, func(a, b ModelStats) int {
		switch {
		case a.Name == b.Name:
			return 0
		case a.Name == "lockstep":
			return -1
		case b.Name == "lockstep":
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return st
}

// RefusalLabel is a refusal reason as a metric label: "room_full",
// "server_full", ….
func RefusalLabel(r msg.RefusalReason) string { return strings.ReplaceAll(r.String(), " ", "_") }

// AdminMetrics are the labelled series of st for the admin endpoint:
// games, waiting rooms and players by network model, refused joins by
// reason, expired rooms, rate-limited messages, and each model's own
// metrics.
func (st *Stats) AdminMetrics() []admin.Metric {
	var out []admin.Metric
	for _, m := range st.Models {
		label := [][2]string{{"network_model", m.Name}}
		out = append(out,
			admin.Metric{Name: "tickwire_relay_games", Help: "Games in progress, by network model.", Labels: label, Value: float64(m.ActiveGames)},
			admin.Metric{Name: "tickwire_relay_waiting_rooms", Help: "Rooms waiting for players, by network model.", Labels: label, Value: float64(m.WaitingRooms)},
			admin.Metric{Name: "tickwire_relay_room_players", Help: "Players seated in rooms, by network model.", Labels: label, Value: float64(m.Players)})
	}
	for r, n := range st.Refused {
		out = append(out, admin.Metric{Name: "tickwire_relay_joins_refused_total", Help: "Joins refused, by reason.", Counter: true,
			Labels: [][2]string{{"reason", RefusalLabel(msg.RefusalReason(r))}}, Value: float64(n)})
	}
	out = append(out,
		admin.Metric{Name: "tickwire_relay_rooms_expired_total", Help: "Waiting rooms closed because they did not fill in time.", Counter: true, Value: float64(st.RoomsExpired)},
		admin.Metric{Name: "tickwire_relay_messages_rate_limited_total", Help: "Inbound messages dropped by the per-connection rate limit.", Counter: true, Value: float64(st.RateLimited)})
	for _, m := range st.Models {
		out = append(out, m.Metrics...)
	}
	return out
}
