package secure

import (
	"bytes"
	"net/netip"
	"time"
)

// Connection lifecycle on the server, as distinct types (seed 001's type
// state, in Go): each state is a handle type that has only the operations
// valid in that state, and each transition returns the handle of the next
// state.
//
//	Server.Accept ──► Unauthenticated ──Finish──► Authenticated ◄──EndGame── InGame
//	                        │                          │  └──────StartGame──────►│
//	                        └──────────── Close ───────┴───────── Close ──────────┘
//
// An Unauthenticated peer can only complete the handshake: it has no Seal
// or Open. Code that processes game orders takes an InGame, so it cannot be
// handed a connection that is not in a game. Go cannot consume the old
// handle as Rust's move does, so a handle left behind by a transition is
// stale: its methods return ErrWrongState (ErrClosed after Close).
//
// A connection is driven by one goroutine at a time; Close and the
// transitions may run on another goroutine than the Server's.

type connState uint8

const (
	stateUnauthenticated connState = iota
	stateAuthenticated
	stateInGame
	stateClosed
)

// conn is one server-side connection, shared by its handles.
type conn struct {
	srv   *Server
	addr  netip.AddrPort
	state connState
	hs    *serverHandshake // until established
	sess  *Session         // once established
	peer  Peer
	last  time.Time     // last authenticated activity (or acceptance)
	idle  time.Duration // idle timeout of the current state
}

func (c *conn) check(want connState) error {
	switch {
	case c == nil:
		return ErrWrongState
	case c.state == stateClosed:
		return ErrClosed
	case c.state != want:
		return ErrWrongState
	}
	return nil
}

func (c *conn) close(failed bool) {
	if c == nil || c.state == stateClosed {
		return
	}
	c.state, c.hs = stateClosed, nil
	c.srv.connEvent(c.addr, false, failed, true)
}

// Unauthenticated is an accepted connection whose handshake is not
// complete. It can only complete the handshake, resend its ServerHello, or
// be closed.
type Unauthenticated struct{ c *conn }

// Check returns nil while the handle is current.
func (u Unauthenticated) Check() error { return u.c.check(stateUnauthenticated) }

// Addr returns the validated client address.
func (u Unauthenticated) Addr() netip.AddrPort { return u.c.addr }

// IdleDeadline is when the connection must have completed its handshake:
// acceptance plus Limits.IdleUnauthenticated.
func (u Unauthenticated) IdleDeadline() time.Time { return u.c.last.Add(u.c.idle) }

// Resend returns the ServerHello when pkt repeats the Initiate that
// created the connection (the client did not get the ServerHello). The
// answer is smaller than the Initiate.
func (u Unauthenticated) Resend(pkt []byte) ([]byte, bool) {
	if u.Check() != nil || !bytes.Equal(pkt, u.c.hs.init) {
		return nil, false
	}
	return u.c.hs.serverHello, true
}

// Finish consumes the client's Finish and, when it proves the client's
// identity, returns the Authenticated connection. ErrMalformed,
// ErrUnexpected and ErrAuth mean the packet was ignored; ErrSignature and
// ErrTokenWrongPlayer close the connection.
func (u Unauthenticated) Finish(pkt []byte, now time.Time) (Authenticated, error) {
	if err := u.Check(); err != nil {
		return Authenticated{}, err
	}
	c := u.c
	sess, peer, err := c.hs.finish(pkt)
	if err != nil {
		if fatal(err) {
			c.close(true)
		}
		return Authenticated{}, err
	}
	c.state, c.hs, c.sess, c.peer = stateAuthenticated, nil, sess, peer
	c.last, c.idle = now, c.srv.lim.IdleAuthenticated
	c.srv.connEvent(c.addr, true, false, false)
	return Authenticated{established{c, stateAuthenticated}}, nil
}

// Close ends the connection and releases its admission slot.
func (u Unauthenticated) Close() {
	if u.Check() == nil {
		u.c.close(false)
	}
}

// established holds the operations shared by Authenticated and InGame.
type established struct {
	c    *conn
	want connState
}

// Check returns nil while the handle is current: ErrWrongState after a
// transition, ErrClosed after Close.
func (e established) Check() error { return e.c.check(e.want) }

// Addr returns the client address.
func (e established) Addr() netip.AddrPort { return e.c.addr }

// Peer returns what the handshake proved about the client.
func (e established) Peer() Peer { return e.c.peer }

// Stats returns the session's counters.
func (e established) Stats() SessionStats { return e.c.sess.Stats() }

// IdleDeadline is when the connection times out unless a datagram opens:
// the last one plus Limits.IdleAuthenticated.
func (e established) IdleDeadline() time.Time { return e.c.last.Add(e.c.idle) }

// Seal seals an outgoing datagram payload (see Session.Seal).
func (e established) Seal(dst []byte, seq uint32, header, plaintext []byte) ([]byte, error) {
	if err := e.Check(); err != nil {
		return dst, err
	}
	return e.c.sess.Seal(dst, seq, header, plaintext)
}

// Open opens an incoming datagram payload (see Session.Open); a datagram
// that opens pushes the idle deadline back.
func (e established) Open(dst []byte, seq uint32, header, sealed []byte, now time.Time) ([]byte, error) {
	if err := e.Check(); err != nil {
		return dst, err
	}
	out, err := e.c.sess.Open(dst, seq, header, sealed)
	if err == nil && now.After(e.c.last) {
		e.c.last = now
	}
	return out, err
}

// Close ends the connection and releases its admission slot.
func (e established) Close() {
	if e.Check() == nil {
		e.c.close(false)
	}
}

// Authenticated is a connection whose peer proved its identity: it can
// exchange encrypted datagrams (control, lobby) and enter a game.
type Authenticated struct{ established }

// StartGame moves the connection into a game; the Authenticated handle
// becomes stale.
func (a Authenticated) StartGame() (InGame, error) {
	if err := a.Check(); err != nil {
		return InGame{}, err
	}
	a.c.state = stateInGame
	return InGame{established{a.c, stateInGame}}, nil
}

// InGame is a connection in a game: the only state in which game orders
// may be submitted. Order-processing code takes an InGame and calls Check.
type InGame struct{ established }

// EndGame returns the connection to the Authenticated state; the InGame
// handle becomes stale.
func (g InGame) EndGame() (Authenticated, error) {
	if err := g.Check(); err != nil {
		return Authenticated{}, err
	}
	g.c.state = stateAuthenticated
	return Authenticated{established{g.c, stateAuthenticated}}, nil
}
