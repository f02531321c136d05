package server

import (
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
)

// SendCause classifies a message the server could not send (see
// room.SendCause).
type SendCause = room.SendCause

// Causes of a failed send.
const (
	SendBackpressure = room.SendBackpressure
	SendTooLarge     = room.SendTooLarge
	SendClosed       = room.SendClosed
	SendEncode       = room.SendEncode
	SendOther        = room.SendOther
	NumSendCauses    = room.NumSendCauses
)

// sendCause classifies err, returned by a join message's Append or
// transport.Conn.Send.
func sendCause(err error) SendCause {
	if errors.Is(err, join.ErrRange) {
		return SendEncode
	}
	return room.Cause(err)
}

// sendLog logs the first failed send of each cause (per room, or for the
// server's own join answers) and stays quiet about the rest: the counters
// have them.
type sendLog [NumSendCauses]atomic.Bool

// sendFailed counts a failed send of m and logs it if it is the first of
// its cause in l. It returns the cause.
func (s *Server) sendFailed(l *sendLog, log *slog.Logger, m join.Message, err error, attrs ...any) SendCause {
	cause := sendCause(err)
	s.counters.sendErrors[cause].Add(1)
	if l[cause].CompareAndSwap(false, true) {
		log.Warn("relay: send failed (further failures of this cause are only counted)",
			append(attrs, "cause", cause.String(), "type", m.Type(), "err", err)...)
	}
	return cause
}
