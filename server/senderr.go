package server

import (
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// SendCause classifies a message the server could not send.
type SendCause uint8

// Causes of a failed send.
const (
	// SendBackpressure: the peer's reliable stream is full; it does not
	// take the game's messages fast enough and leaves the match.
	SendBackpressure SendCause = iota
	// SendTooLarge: the message exceeds its lane's size limit.
	SendTooLarge
	// SendClosed: the connection had already ended.
	SendClosed
	// SendEncode: the message did not encode.
	SendEncode
	// SendOther: any other transport error.
	SendOther
	// NumSendCauses is the number of causes.
	NumSendCauses
)

var sendCauseNames = [NumSendCauses]string{"backpressure", "too_large", "closed", "encode", "other"}

// String is the cause's metric label.
func (c SendCause) String() string {
	if c < NumSendCauses {
		return sendCauseNames[c]
	}
	return "cause?"
}

// sendCause classifies err, returned by msg.Codec.Append, a join
// message's Append or transport.Conn.Send.
func sendCause(err error) SendCause {
	var me *msg.Error
	switch {
	case errors.Is(err, transport.ErrBackpressure):
		return SendBackpressure
	case errors.Is(err, transport.ErrMessageTooLarge):
		return SendTooLarge
	case errors.Is(err, transport.ErrClosed), errors.Is(err, transport.ErrPeerClosed),
		errors.Is(err, transport.ErrTimeout), errors.Is(err, transport.ErrNotConnected),
		errors.Is(err, transport.ErrMemoryBudget):
		return SendClosed
	case errors.As(err, &me), errors.Is(err, join.ErrRange):
		return SendEncode
	}
	return SendOther
}

// sendLog logs the first failed send of each cause (per room, or for the
// server's own join answers) and stays quiet about the rest: the counters
// have them.
type sendLog [NumSendCauses]atomic.Bool

// sendFailed counts a failed send of m and logs it if it is the first of
// its cause in l. It returns the cause.
func (s *Server) sendFailed(l *sendLog, log *slog.Logger, m msg.Message, err error, attrs ...any) SendCause {
	cause := sendCause(err)
	s.counters.sendErrors[cause].Add(1)
	if l[cause].CompareAndSwap(false, true) {
		log.Warn("relay: send failed (further failures of this cause are only counted)",
			append(attrs, "cause", cause.String(), "type", m.Type(), "err", err)...)
	}
	return cause
}
