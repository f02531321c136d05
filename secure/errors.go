package secure

import "errors"

// Sentinel errors. Check them with errors.Is.
var (
	// ErrMalformed reports a packet that does not parse: wrong size, type,
	// version, non-zero padding or reserved bits.
	ErrMalformed = errors.New("secure: malformed packet")
	// ErrUnexpected reports a well-formed packet that does not belong to
	// this handshake or this state (wrong nonce, message out of order). The
	// caller ignores it.
	ErrUnexpected = errors.New("secure: unexpected packet")
	// ErrAuth reports a packet whose AEAD tag does not verify: it was
	// tampered with, forged, or sealed under other keys.
	ErrAuth = errors.New("secure: authentication failed")
	// ErrReplay reports a datagram whose sequence was already received or
	// is older than the replay window.
	ErrReplay = errors.New("secure: replayed or too old datagram")
	// ErrSequence is returned by Seal for a sequence that does not follow
	// the previous one (it would reuse a nonce).
	ErrSequence = errors.New("secure: send sequence does not increase")
	// ErrBadCookie reports an Initiate whose cookie is invalid, expired or
	// minted for another address.
	ErrBadCookie = errors.New("secure: invalid or expired cookie")
	// ErrSignature reports a handshake signature that does not verify.
	ErrSignature = errors.New("secure: bad handshake signature")
	// ErrServerKeyMismatch is returned to a client that pinned a server key
	// when the server proves a different identity.
	ErrServerKeyMismatch = errors.New("secure: server key does not match the pinned key")
	// ErrConfig reports an unusable configuration (missing or wrongly
	// sized keys).
	ErrConfig = errors.New("secure: invalid configuration")

	// ErrRefused is returned to a client the server refused; the error also
	// matches the reason's sentinel (ErrServerFull, ErrTokenExpired, ...).
	ErrRefused = errors.New("secure: connection refused")
	// ErrServerFull: the server is at its maximum number of connections.
	ErrServerFull = errors.New("secure: server full")
	// ErrTooManyFromIP: the address already has the maximum number of
	// connections.
	ErrTooManyFromIP = errors.New("secure: too many connections from this address")
	// ErrRateLimited: the address opened new connections too fast.
	ErrRateLimited = errors.New("secure: new connection rate exceeded")
	// ErrTokenRequired: the server admits only players with a connect token.
	ErrTokenRequired = errors.New("secure: connect token required")
	// ErrTokenSignature: the connect token is not signed by the trusted
	// matchmaker.
	ErrTokenSignature = errors.New("secure: connect token signature invalid")
	// ErrTokenWrongServer: the connect token names another server.
	ErrTokenWrongServer = errors.New("secure: connect token is for another server")
	// ErrTokenExpired: the connect token's expiry has passed.
	ErrTokenExpired = errors.New("secure: connect token expired")
	// ErrTokenWrongPlayer: the client's identity key is not the one the
	// connect token names.
	ErrTokenWrongPlayer = errors.New("secure: connect token is for another player")

	// ErrVersion: the peer speaks another handshake version (Version).
	// A client gets it, with ErrRefused, from the server's Refuse; the
	// error's text names both versions.
	ErrVersion = errors.New("secure: handshake version mismatch")

	// ErrWrongState is returned by a connection handle used after the
	// connection left the handle's state (a stale handle).
	ErrWrongState = errors.New("secure: operation not valid in this connection state")
	// ErrClosed is returned by a handle of a closed connection.
	ErrClosed = errors.New("secure: connection closed")
)
