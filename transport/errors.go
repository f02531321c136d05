package transport

import "errors"

// Sentinel errors. Check them with errors.Is.
var (
	// ErrBackpressure is returned by Send when a channel's buffer limit,
	// queued-message limit or unacknowledged-byte limit is reached. Send
	// never blocks: the caller keeps the message and retries later, for
	// example on its next tick. Unreliable channels never return it; they
	// drop their oldest queued messages instead.
	ErrBackpressure = errors.New("transport: channel is full (backpressure)")
	// ErrMessageTooLarge is returned by Send for a message over the
	// channel's maximum size, or one that needs fragmentation on a channel
	// that does not allow it.
	ErrMessageTooLarge = errors.New("transport: message too large for channel")
	// ErrUnknownChannel is returned for a channel id missing from the
	// configuration, and for the reserved control channel 0.
	ErrUnknownChannel = errors.New("transport: unknown channel")
	// ErrNotConnected is returned by Send before the handshake completes.
	ErrNotConnected = errors.New("transport: not connected")
	// ErrClosed is returned after the local side closed the connection.
	ErrClosed = errors.New("transport: connection closed")
	// ErrPeerClosed is returned after the peer disconnected gracefully;
	// the error text carries the peer's reason.
	ErrPeerClosed = errors.New("transport: peer closed the connection")
	// ErrTimeout is returned when the handshake or the connection timed out.
	ErrTimeout = errors.New("transport: timed out")
	// ErrHandshake is returned when the peer rejected the handshake or
	// answered with something that is not a valid handshake.
	ErrHandshake = errors.New("transport: handshake failed")
	// ErrInvalidConfig is returned for an inconsistent Config.
	ErrInvalidConfig = errors.New("transport: invalid config")
	// ErrUnreachable is returned by Dial when the network reported the
	// peer unreachable before the handshake completed: an ICMP port
	// unreachable (nothing listens on that port), host or network
	// unreachable. The error also wraps the system's error
	// (syscall.ECONNREFUSED, …). Only a connected socket hears these:
	// DialUDP dials from one.
	ErrUnreachable = errors.New("transport: peer unreachable")
	// ErrMalformed reports a datagram or frame that does not parse.
	ErrMalformed = errors.New("transport: malformed datagram")
)
