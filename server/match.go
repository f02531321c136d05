package server

import (
	"crypto/ed25519"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
)

// Outcomes of a match in a MatchEvent.
const (
	OutcomeFinished  = "finished"  // the match got past tick 0 (unless the model says otherwise)
	OutcomeAbandoned = "abandoned" // the match ended before its first tick
	OutcomeShutdown  = "shutdown"  // the server closed (or its drain deadline passed) while it ran
)

// MatchEvent is a room's match starting (Ended false) or ending, reported
// to Config.OnMatch: what a server operator records for every model.
type MatchEvent struct {
	// Seq identifies the match within this server: the same at its start
	// and its end.
	Seq uint64
	// Room, NetworkModel and MatchType name the room.
	Room, NetworkModel, MatchType string
	// Players are the seats the match started with.
	Players []MatchPlayer
	// Started is when the match started (wall clock).
	Started time.Time

	// Ended marks the end event; the fields below are set only then.
	Ended   bool
	EndedAt time.Time
	// Outcome is OutcomeFinished, OutcomeAbandoned or OutcomeShutdown.
	Outcome string
	// Tick, Phase and FinalHash are the room's last published status.
	Tick      uint64
	Phase     string
	FinalHash string
}

// MatchPlayer is a seat of a match.
type MatchPlayer struct {
	Player protocol.PlayerID
	// PublicKey is the Ed25519 identity the player proved in the secure
	// handshake; nil on a plaintext connection.
	PublicKey ed25519.PublicKey
}

// matchSeq numbers matches; one per server.
type matchSeq struct{ n atomic.Uint64 }

func (m *matchSeq) next() uint64 { return m.n.Add(1) }

// matchStarted reports h's start to Config.OnMatch and returns the event
// to end it with.
func (s *Server) matchStarted(h *hostedRoom) MatchEvent {
	ev := MatchEvent{Seq: s.seq.next(), Room: h.name, NetworkModel: h.model.Name, MatchType: h.matchType,
		Started: time.Now()}
	s.mu.Lock()
	for _, st := range h.seats[:min(h.size, len(h.seats))] {
		if st == nil {
			continue
		}
		mp := MatchPlayer{Player: st.player}
		if sec, ok := st.conn.Security(); ok {
			mp.PublicKey = sec.PeerKey
		}
		ev.Players = append(ev.Players, mp)
	}
	s.mu.Unlock()
	if s.cfg.OnMatch != nil {
		s.cfg.OnMatch(ev)
	}
	return ev
}

// matchEnded reports the end of the match ev started, with the room's
// last status, to Config.OnMatch, and returns the MatchResult message to
// send its players (nil: none), certified by Config.Certify.
func (s *Server) matchEnded(h *hostedRoom, ev MatchEvent, st room.Status) []byte {
	if s.cfg.OnMatch == nil && s.cfg.Certify == nil {
		return nil
	}
	ev.Ended, ev.EndedAt = true, time.Now()
	ev.Tick, ev.Phase, ev.FinalHash = st.Tick, st.Phase, st.FinalHash
	switch {
	case h.ctx.Err() != nil:
		ev.Outcome = OutcomeShutdown
	case st.Outcome != "":
		ev.Outcome = st.Outcome
	case st.Tick == 0:
		ev.Outcome = OutcomeAbandoned
	default:
		ev.Outcome = OutcomeFinished
	}
	if s.cfg.OnMatch != nil {
		s.cfg.OnMatch(ev)
	}
	return s.certify(h, ev)
}

// certify is the MatchResult message of an ended match, or nil.
func (s *Server) certify(h *hostedRoom, ev MatchEvent) []byte {
	if s.cfg.Certify == nil {
		return nil
	}
	cert, err := s.cfg.Certify(ev)
	if err != nil || cert == nil {
		if err != nil {
			h.log.Error("relay: match result not certified", "err", err)
		}
		return nil
	}
	b, err := (&join.MatchResult{Certificate: cert}).Append(nil)
	if err != nil {
		h.log.Error("relay: match result not sent", "err", err)
		return nil
	}
	return b
}
