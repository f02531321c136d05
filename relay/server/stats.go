package server

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/relay"
)

// Stats is a snapshot of the server's figures. Counters are cumulative
// since New; ActiveGames, Players and Rooms describe the moment.
type Stats struct {
	ActiveGames  int // rooms playing (relay core running)
	WaitingRooms int // rooms still filling
	Players      int // connections seated in a room

	GamesStarted, GamesEnded  uint64
	JoinsRefused              uint64
	LateOrders                uint64 // submissions that missed their tick
	Strikes                   uint64 // anti-lag-switch strikes
	Removals                  uint64 // players removed from a match
	QosAdjustments            uint64 // run-ahead/deadline changes
	Desyncs                   uint64 // sync checks whose hashes disagreed
	HostStalls                uint64 // times a game's relay core found the relay itself had stalled
	MessagesIn, MessagesOut   uint64 // relay messages decoded and sent
	Malformed                 uint64 // messages that did not decode
	Rejected                  uint64 // messages the relay core refused
	BytesIn, BytesOut         uint64 // datagram bytes of room connections
	DatagramsIn, DatagramsOut uint64 // datagrams of room connections

	// BroadcastLateness is how late tick frames left against the tick
	// schedule (window end plus deadline), over every game.
	BroadcastLateness Histogram

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
}

// latenessBounds are the upper bounds of the lateness buckets, finer
// around the 2 ms capacity limit of "bench relay"; the table is never
// modified.
var latenessBounds = [...]time.Duration{
	50 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	750 * time.Microsecond, time.Millisecond, 1500 * time.Microsecond, 2 * time.Millisecond,
	3 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
}

// Histogram is a cumulative histogram: Counts[i] observations were at
// most Bounds[i], and Count observations were made in all (the last
// bucket is +Inf).
type Histogram struct {
	Bounds [len(latenessBounds)]time.Duration
	Counts [len(latenessBounds)]uint64
	Count  uint64
	Sum    time.Duration
}

// Quantile estimates the q-quantile (0 < q ≤ 1) as the upper bound of the
// bucket it falls in; beyond the last bound it returns that bound.
func (h Histogram) Quantile(q float64) time.Duration {
	if h.Count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.Count)))
	for i, c := range h.Counts {
		if c >= rank {
			return h.Bounds[i]
		}
	}
	return h.Bounds[len(h.Bounds)-1]
}

// histogram collects a Histogram with atomics.
type histogram struct {
	buckets [len(latenessBounds)]atomic.Uint64 // not cumulative
	count   atomic.Uint64
	sum     atomic.Int64
}

func (h *histogram) observe(d time.Duration) {
	for i, b := range latenessBounds {
		if d <= b {
			h.buckets[i].Add(1)
			break
		}
	}
	h.count.Add(1)
	h.sum.Add(int64(d))
}

func (h *histogram) snapshot() Histogram {
	out := Histogram{Bounds: latenessBounds}
	var run uint64
	for i := range h.buckets {
		run += h.buckets[i].Load()
		out.Counts[i] = run
	}
	out.Count = h.count.Load()
	out.Sum = time.Duration(h.sum.Load())
	return out
}

// RoomStats describes one room; figures of a playing room are refreshed
// about once a second.
type RoomStats struct {
	Name     string
	Size     int // players the game needs
	Players  int // seated (connections not closed)
	Phase    string
	Tick     uint64 // next tick to broadcast
	RunAhead uint8
	Deadline time.Duration
}

// counters are the server's cumulative figures, updated by the rooms and
// read concurrently by Stats.
type counters struct {
	gamesStarted, gamesEnded, joinsRefused atomic.Uint64
	lateOrders, strikes, removals          atomic.Uint64
	qosAdjustments, desyncs, hostStalls    atomic.Uint64
	messagesIn, messagesOut                atomic.Uint64
	malformed, rejected                    atomic.Uint64
	bytesIn, bytesOut                      atomic.Uint64
	datagramsIn, datagramsOut              atomic.Uint64
	lateness                               histogram
	kinds                                  kindCounts
	tokens                                 tokenCounts
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
// from any goroutine at any rate; it takes the server's lock only to list
// the rooms.
func (s *Server) Stats() Stats {
	c := &s.counters
	st := Stats{
		GamesStarted:   c.gamesStarted.Load(),
		GamesEnded:     c.gamesEnded.Load(),
		JoinsRefused:   c.joinsRefused.Load(),
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

		BroadcastLateness: c.lateness.snapshot(),
	}
	st.MalformedByKind, st.RejectedByKind = c.kinds.snapshot()
	st.TokenRefusals = c.tokens.snapshot()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rooms {
		rs := *r.published.Load()
		rs.Players = r.seated
		if r.started {
			st.ActiveGames++
		} else {
			st.WaitingRooms++
		}
		st.Players += r.seated
		st.Rooms = append(st.Rooms, rs)
	}
	return st
}
