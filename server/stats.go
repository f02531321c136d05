package server

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/join"
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
	// Refused counts refused joins by reason (join.RefusalReason).
	Refused      [join.NumRefusalReasons]uint64
	RoomsExpired uint64 // waiting rooms that did not fill in time
	// RateLimited counts messages dropped by the per-connection inbound
	// rate limit before they reached a room.
	RateLimited             uint64
	MessagesIn, MessagesOut uint64 // messages queued for rooms; messages sent (joins' answers and rooms')
	Malformed               uint64 // joins that did not decode (a model counts its own messages)
	// SendErrors counts the messages that could not be sent, by cause;
	// the first of each cause is logged once per room (and once for the
	// server's answers to joins).
	SendErrors                [NumSendCauses]uint64
	BytesIn, BytesOut         uint64 // datagram bytes of room connections
	DatagramsIn, DatagramsOut uint64 // datagrams of room connections
	// RedundancyBytes is the bytes room connections sent as parity for
	// small urgent messages, and Recovered the messages they rebuilt from
	// their peers' parity (transport.Stats).
	RedundancyBytes, Recovered uint64

	// MalformedByKind splits Malformed by the sentinel error of the
	// failure (see kinds.go): "unknown_type", "malformed", "range",
	// "orders", "other". Every kind is present, zero or not.
	MalformedByKind map[string]uint64
	// TokenRefusals counts joins refused for their connect token
	// (Config.RequireToken), by reason: "missing", "wrong_room".
	TokenRefusals map[string]uint64

	// Draining is set once Drain was called: no new room starts.
	Draining bool

	Rooms []RoomStats
	// Models describes each hosted network model, in the order of
	// Config.Models.
	Models []ModelStats
}

// ModelStats are one network model's figures.
type ModelStats struct {
	Name         string
	ActiveGames  int // rooms playing
	WaitingRooms int // rooms still filling
	Players      int // connections seated in its rooms
	// TooSlow counts the seats its rooms' drivers disconnected because
	// their send queue stayed full (room.SendGrace).
	TooSlow uint64
	// Metrics are the model's own figures (room.Model.Metrics).
	Metrics []admin.Metric
	// Links are the transport figures of its open connections.
	Links LinkFigures
}

// RoomStats describes one room; figures of a playing room are refreshed
// about once a second.
type RoomStats struct {
	Name         string
	NetworkModel string
	MatchType    string
	Size         int    // players the game needs
	Players      int    // seated (connections not closed)
	Spectators   int    // spectators watching (connections not closed)
	Phase        string // the model's word (room.Status)
	Tick         uint64 // the model's tick (lockstep: the next tick to broadcast)
}

// counters are the server's cumulative figures, updated by the rooms and
// read concurrently by Stats.
type counters struct {
	gamesStarted, gamesEnded  atomic.Uint64
	refused                   [join.NumRefusalReasons]atomic.Uint64
	roomsExpired, rateLimited atomic.Uint64
	messagesIn, messagesOut   atomic.Uint64
	malformed                 atomic.Uint64
	bytesIn, bytesOut         atomic.Uint64
	datagramsIn, datagramsOut atomic.Uint64
	redundancyBytes           atomic.Uint64
	recovered                 atomic.Uint64
	sendErrors                [NumSendCauses]atomic.Uint64
	malformedByKind           *metrics.ByKind
	tokens                    tokenCounts
}

// Stats returns a snapshot of the server's figures. It is safe to call
// from any goroutine; it takes the server's lock to list the rooms, and
// reads each open connection's byte counts.
func (s *Server) Stats() Stats {
	c := &s.counters
	st := Stats{
		GamesStarted: c.gamesStarted.Load(),
		GamesEnded:   c.gamesEnded.Load(),
		RoomsExpired: c.roomsExpired.Load(),
		RateLimited:  c.rateLimited.Load(),
		MessagesIn:   c.messagesIn.Load(),
		MessagesOut:  c.messagesOut.Load(),
		Malformed:    c.malformed.Load(),
		BytesIn:      c.bytesIn.Load(),
		BytesOut:     c.bytesOut.Load(),
		DatagramsIn:  c.datagramsIn.Load(),
		DatagramsOut: c.datagramsOut.Load(),
		// Cumulative: those of ended connections, then the open ones'.
		RedundancyBytes: c.redundancyBytes.Load(),
		Recovered:       c.recovered.Load(),
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
	type openConn struct {
		model string
		conn  *transport.Conn
	}
	var open []openConn // seated connections, whose bytes are counted when they end
	st.MalformedByKind = c.malformedByKind.Snapshot()
	st.TokenRefusals = c.tokens.snapshot()
	s.mu.Lock()
	st.Draining = s.draining
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
			}
		} else {
			st.WaitingRooms++
			ms.WaitingRooms++
		}
		st.Players += h.seated
		ms.Players += h.seated
		for _, seat := range h.seats {
			if seat != nil && !seat.ended {
				open = append(open, openConn{h.model.Name, seat.conn})
			}
		}
		st.Rooms = append(st.Rooms, rs)
	}
	s.mu.Unlock()
	links := make(map[string]*linkAccumulator, len(s.models))
	for name := range s.models {
		links[name] = newLinkAccumulator()
	}
	for _, o := range open {
		cs := o.conn.Stats()
		st.BytesIn += cs.BytesReceived
		st.BytesOut += cs.BytesSent
		st.DatagramsIn += cs.PacketsReceived
		st.DatagramsOut += cs.PacketsSent
		st.RedundancyBytes += cs.RedundancyBytes
		st.Recovered += cs.Recovered
		links[o.model].observe(cs)
	}
	slices.SortFunc(st.Rooms, func(a, b RoomStats) int { return strings.Compare(a.Name, b.Name) })
	for _, name := range s.order {
		ms, m := byModel[name], s.models[name]
		if m.Metrics != nil {
			ms.Metrics = m.Metrics()
		}
		ms.TooSlow = m.counters.TooSlow.Load()
		ms.Links = links[name].figures()
		st.MessagesOut += m.counters.MessagesOut.Load()
		for i := range m.counters.SendErrors {
			st.SendErrors[i] += m.counters.SendErrors[i].Load()
		}
		st.Models = append(st.Models, *ms)
	}
	return st
}

// RefusalLabel is a refusal reason as a metric label: "room_full",
// "server_full", ….
func RefusalLabel(r join.RefusalReason) string { return strings.ReplaceAll(r.String(), " ", "_") }

// AdminMetrics are the labelled series of st for the admin endpoint:
// games, waiting rooms and players by network model, refused joins by
// reason, expired rooms, rate-limited messages, parity bytes and rebuilt
// messages, each model's connection figures (LinkFigures) and each
// model's own metrics.
func (st *Stats) AdminMetrics() []admin.Metric {
	var out []admin.Metric
	for _, m := range st.Models {
		label := [][2]string{{"network_model", m.Name}}
		out = append(out,
			admin.Metric{Name: "tickwire_relay_games", Help: "Games in progress, by network model.", Labels: label, Value: float64(m.ActiveGames)},
			admin.Metric{Name: "tickwire_relay_waiting_rooms", Help: "Rooms waiting for players, by network model.", Labels: label, Value: float64(m.WaitingRooms)},
			admin.Metric{Name: "tickwire_relay_room_players", Help: "Players seated in rooms, by network model.", Labels: label, Value: float64(m.Players)},
			admin.Metric{Name: "tickwire_relay_slow_disconnects_total", Help: "Seats disconnected because their send queue stayed full (the room driver's backpressure policy), by network model.",
				Counter: true, Labels: label, Value: float64(m.TooSlow)})
	}
	for r, n := range st.Refused {
		out = append(out, admin.Metric{Name: "tickwire_relay_joins_refused_total", Help: "Joins refused, by reason.", Counter: true,
			Labels: [][2]string{{"reason", RefusalLabel(join.RefusalReason(r))}}, Value: float64(n)})
	}
	out = append(out,
		admin.Metric{Name: "tickwire_relay_draining", Help: "1 while the server drains (no new room starts, the running matches finish), 0 otherwise.", Value: boolValue(st.Draining)},
		admin.Metric{Name: "tickwire_relay_rooms_expired_total", Help: "Waiting rooms closed because they did not fill in time.", Counter: true, Value: float64(st.RoomsExpired)},
		admin.Metric{Name: "tickwire_relay_messages_rate_limited_total", Help: "Inbound messages dropped by the per-connection rate limit.", Counter: true, Value: float64(st.RateLimited)})
	out = append(out,
		admin.Metric{Name: "tickwire_relay_redundancy_bytes_total", Help: "Bytes room connections sent as parity for small urgent messages.", Counter: true, Value: float64(st.RedundancyBytes)},
		admin.Metric{Name: "tickwire_relay_recovered_messages_total", Help: "Messages room connections rebuilt from parity without waiting for a retransmission.", Counter: true, Value: float64(st.Recovered)})
	for _, m := range st.Models {
		out = append(out, m.Links.adminMetrics(m.Name)...)
	}
	for k, n := range st.MalformedByKind { // joins; a model may add its own under the same name
		out = append(out, admin.Metric{Name: "tickwire_relay_malformed_messages_total", Help: "Messages from clients that did not decode, by kind.",
			Counter: true, Labels: [][2]string{{"kind", k}}, Value: float64(n)})
	}
	for _, m := range st.Models {
		out = append(out, m.Metrics...)
	}
	return out
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
