package transport

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// ErrMemoryBudget ends a connection that held more than Config.MemoryBudget
// bytes in its queues, reassembly and undelivered messages.
var ErrMemoryBudget = errors.New("transport: connection memory budget exceeded")

// SecurityConfig turns on the secure handshake and datagram protection of
// package secure. Fields marked (server) or (client) matter on that side
// only.
type SecurityConfig struct {
	// Identity is this side's Ed25519 key. Required on a server, whose
	// public half clients pin; a client without one uses a fresh key for
	// each Dial.
	Identity ed25519.PrivateKey
	// ServerKey (client) pins the server's identity: a server proving any
	// other key fails Dial with an error matching secure.ErrServerKeyMismatch
	// and ErrHandshake.
	ServerKey ed25519.PublicKey
	// Token (client) is a connect token from the matchmaker
	// (secure.IssueToken), sent with the handshake.
	Token []byte
	// Matchmaker (server), when set, admits only clients with a valid,
	// unexpired connect token it signed for this server.
	Matchmaker ed25519.PublicKey
	// Limits (server) are the connection limits; the zero value gives the
	// defaults of secure.Limits (1,000 connections, 5 per IP, 10 new per
	// second per IP, idle 60 s unauthenticated).
	Limits secure.Limits
	// CookiePeriod (server) is the cookie time bucket. 0 means
	// secure.DefaultCookiePeriod.
	CookiePeriod time.Duration
	// RekeyAfter is the number of datagrams sealed per key phase.
	// 0 means secure.DefaultRekeyAfter.
	RekeyAfter uint64
	// Rand is the source of keys and nonces. Nil means crypto/rand.
	Rand io.Reader
}

func (sc *SecurityConfig) rand() io.Reader {
	if sc.Rand != nil {
		return sc.Rand
	}
	return rand.Reader
}

// newSecureServer returns the listener-wide handshake server, or nil for a
// plaintext configuration.
func newSecureServer(set *settings) (*secure.Server, error) {
	sc := set.security
	if sc == nil {
		return nil, nil
	}
	srv, err := secure.NewServer(secure.ServerConfig{
		Identity:     sc.Identity,
		Matchmaker:   sc.Matchmaker,
		CookiePeriod: sc.CookiePeriod,
		Limits:       sc.Limits,
		RekeyAfter:   sc.RekeyAfter,
	}, sc.rand())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return srv, nil
}

// SecurityStats are the driver's security counters.
type SecurityStats struct {
	// Tampered, Replayed and Malformed count datagrams of established
	// connections dropped because they failed authentication, repeated or
	// predated the replay window, or were too short to open.
	Tampered, Replayed, Malformed uint64
	// Stray counts handshake packets that reached an established
	// connection (retransmissions; dropped).
	Stray uint64
	// Early counts datagrams dropped because they arrived before the
	// handshake they belong to completed.
	Early uint64
	// Expired counts handshakes abandoned after the cookie, dropped when
	// their idle deadline passed.
	Expired uint64
}

// secCounters are an endpoint's running SecurityStats.
type secCounters struct {
	tampered, replayed, malformed, stray, early, expired atomic.Uint64
}

func (c *secCounters) openFailed(err error) {
	switch {
	case errors.Is(err, secure.ErrReplay):
		c.replayed.Add(1)
	case errors.Is(err, secure.ErrAuth):
		c.tampered.Add(1)
	default:
		c.malformed.Add(1)
	}
}

func (c *secCounters) add(s *SecurityStats) {
	s.Tampered += c.tampered.Load()
	s.Replayed += c.replayed.Load()
	s.Malformed += c.malformed.Load()
	s.Stray += c.stray.Load()
	s.Early += c.early.Load()
	s.Expired += c.expired.Load()
}

// connSecurity is an established connection's datagram protection: the
// client holds the secure.Session itself, the server the Authenticated
// lifecycle handle. Guarded by Conn.mu.
type connSecurity struct {
	sess *secure.Session      // client
	auth secure.Authenticated // server, when sess is nil
	peer ed25519.PublicKey    // the peer's proven identity
	// finish is the client's last handshake packet, sent ahead of its
	// datagrams until a datagram from the server opens: only then does the
	// client know the server received it.
	finish []byte

	arena []byte // sealed datagrams
	out   [][]byte
}

// open authenticates and decrypts a datagram in place and returns its
// plaintext form (clear header, then frames), a slice of b: the frames
// are decrypted over the ciphertext, then the header moves up over the
// flag byte that preceded it. b is left scrambled when the datagram does
// not open. Errors are secure's sentinels: ErrMalformed, ErrReplay,
// ErrAuth.
//
//	sealed:  | header (n) | flags | ciphertext ... | tag |
//	opened:          | header (n) | frames ... |
func (s *connSecurity) open(b []byte, now time.Time) ([]byte, error) {
	h, rest, err := parseHeader(b)
	if err != nil || len(rest) == 0 {
		return nil, secure.ErrMalformed
	}
	n := len(b) - len(rest)
	head := b[:n]
	dst := rest[1:1] // the frames land exactly over the ciphertext
	var frames []byte
	if s.sess != nil {
		frames, err = s.sess.Open(dst, h.seq, head, rest)
	} else {
		frames, err = s.auth.Open(dst, h.seq, head, rest, now)
	}
	if err != nil {
		return nil, err
	}
	s.finish = nil
	copy(b[1:], head)
	return b[1 : 1+n+len(frames)], nil
}

// seal returns the sealed forms of plaintext datagrams, preceded by the
// client's Finish while the server has not been heard.
func (s *connSecurity) seal(dgs [][]byte) [][]byte {
	arena, out := s.arena[:0], s.out[:0]
	if s.finish != nil && len(dgs) > 0 {
		out = append(out, s.finish)
	}
	for _, d := range dgs {
		h, rest, err := parseHeader(d)
		if err != nil {
			continue
		}
		head := d[:len(d)-len(rest)]
		start := len(arena)
		arena = append(arena, head...)
		if s.sess != nil {
			arena, err = s.sess.Seal(arena, h.seq, head, rest)
		} else {
			arena, err = s.auth.Seal(arena, h.seq, head, rest)
		}
		if err != nil { // the sequence went backwards: never reuse a nonce
			arena = arena[:start]
			continue
		}
		out = append(out, arena[start:len(arena):len(arena)])
	}
	s.arena, s.out = arena, out[:0]
	return out
}

func (s *connSecurity) stats() secure.SessionStats {
	if s.sess != nil {
		return s.sess.Stats()
	}
	return s.auth.Stats()
}

// authIdleDeadline returns when a server's encrypted connection passes
// the authenticated idle limit (secure.Limits.IdleAuthenticated) without a
// datagram that opened, or zero. c.mu must be held.
func (c *Conn) authIdleDeadline() time.Time {
	if c.sec == nil || c.sec.sess != nil || c.sess.State() == StateDisconnected {
		return time.Time{}
	}
	return c.sec.auth.IdleDeadline()
}

// close releases a server connection's admission slot.
func (s *connSecurity) close() {
	if s.sess == nil {
		s.auth.Close()
	}
}

// ConnSecurity describes a connection's protection.
type ConnSecurity struct {
	// PeerKey is the Ed25519 identity the peer proved.
	PeerKey ed25519.PublicKey
	// Token is the connect token the client presented, on a server that
	// requires one.
	Token *secure.Token
	// Stats are the datagram counters: sealed, opened, tampered,
	// replayed, key updates.
	Stats secure.SessionStats
}

// Security returns the connection's protection, or false for a plaintext
// connection.
func (c *Conn) Security() (ConnSecurity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sec == nil {
		return ConnSecurity{}, false
	}
	cs := ConnSecurity{PeerKey: c.sec.peer, Stats: c.sec.stats()}
	if c.sec.sess == nil {
		cs.Token = c.sec.auth.Peer().Token
	}
	return cs, true
}

// addrPortOf returns the IP address and port of a peer address.
func addrPortOf(a net.Addr) (netip.AddrPort, bool) {
	switch a := a.(type) {
	case *net.UDPAddr:
		return a.AddrPort(), true
	case *net.TCPAddr:
		return a.AddrPort(), true
	}
	ap, err := netip.ParseAddrPort(a.String())
	return ap, err == nil
}

// pendingConn is a server handshake past the cookie: admitted, waiting for
// the client's Finish and then its first datagram, which creates the Conn.
type pendingConn struct {
	unauth   secure.Unauthenticated
	auth     secure.Authenticated
	authed   bool
	deadline time.Time
}

func (p *pendingConn) close() {
	if p.authed {
		p.auth.Close()
	} else {
		p.unauth.Close()
	}
}

// routeSecure is route for an encrypted endpoint. Connections are keyed by
// address alone: handshake packets carry no connection id.
func (ep *endpoint) routeSecure(b []byte, addr net.Addr, rb *readBatch) {
	key := keyOf(addr, 0)
	kind := secure.Classify(b)
	ep.mu.Lock()
	c := ep.conns[key]
	ep.mu.Unlock()
	switch {
	case c != nil && kind == secure.KindNone:
		c.handle(b, rb)
	case c != nil:
		ep.sec.stray.Add(1)
	case ep.listener == nil:
		if kind != secure.KindNone {
			select {
			case ep.handshakes <- append([]byte(nil), b...):
			default:
			}
		}
	default:
		ep.serveHandshake(b, addr, key, kind)
	}
}

// serveHandshake handles a packet from an address with no connection. It
// runs on the read goroutine, the only one touching ep.pending apart from
// shutdown and Stats (under ep.mu).
func (ep *endpoint) serveHandshake(b []byte, addr net.Addr, key connKey, kind secure.Kind) {
	srv := ep.listener.sec
	ap, ok := addrPortOf(addr)
	if !ok {
		return
	}
	now := time.Now()
	ep.sweepPending(now)
	ep.mu.Lock()
	p := ep.pending[key]
	closed := ep.closed
	ep.mu.Unlock()
	if closed {
		return
	}
	if p != nil {
		switch {
		case kind == secure.KindInitiate:
			if reply, ok := p.unauth.Resend(b); ok {
				ep.write(addr, [][]byte{reply})
				return
			}
			// A new attempt from the same address replaces the old one.
			ep.dropPending(key, p)
		case kind == secure.KindFinish && !p.authed:
			auth, err := p.unauth.Finish(b, now)
			if err != nil {
				if p.unauth.Check() != nil { // fatal: bad signature, wrong player
					ep.dropPending(key, p)
				}
				return
			}
			p.auth, p.authed = auth, true
			return
		case kind == secure.KindNone && p.authed:
			ep.promote(b, addr, key, p, now)
			return
		case kind == secure.KindNone:
			ep.sec.early.Add(1)
			return
		case kind != secure.KindHello:
			return
		}
	}
	if kind == secure.KindInitiate {
		u, reply, err := srv.Accept(b, ap, now)
		if reply != nil {
			ep.write(addr, [][]byte{reply})
		}
		if err != nil {
			ep.set.logger.Debug("transport: handshake refused", "peer", addr, "err", err)
			return
		}
		ep.mu.Lock()
		ep.pending[key] = &pendingConn{unauth: u, deadline: u.IdleDeadline()}
		ep.mu.Unlock()
		return
	}
	if reply, ok := srv.HandleUnvalidated(b, ap, now); ok {
		ep.write(addr, [][]byte{reply})
	}
}

// promote turns a pending handshake into a Conn on its first datagram that
// opens.
func (ep *endpoint) promote(b []byte, addr net.Addr, key connKey, p *pendingConn, now time.Time) {
	id, ok := peekConnID(b)
	if !ok {
		ep.sec.malformed.Add(1)
		return
	}
	sec := &connSecurity{auth: p.auth, peer: p.auth.Peer().Key}
	plain, err := sec.open(b, now)
	if err != nil {
		ep.sec.openFailed(err)
		return
	}
	ep.mu.Lock()
	if ep.closed {
		ep.mu.Unlock()
		return
	}
	delete(ep.pending, key)
	c := ep.newConn(addr, key, SessionParams{ConnID: id, InitialSeq: random32(), Token: random32()})
	c.sec = sec
	ep.mu.Unlock()
	c.start()
	c.handlePlain(plain, now, nil)
}

func (ep *endpoint) dropPending(key connKey, p *pendingConn) {
	ep.mu.Lock()
	if ep.pending[key] == p {
		delete(ep.pending, key)
	}
	ep.mu.Unlock()
	p.close()
}

// sweepPending drops pending handshakes past their idle deadline, at most
// once a second.
func (ep *endpoint) sweepPending(now time.Time) {
	if now.Sub(ep.lastSweep) < time.Second {
		return
	}
	ep.lastSweep = now
	ep.mu.Lock()
	var expired []*pendingConn
	for k, p := range ep.pending {
		if now.After(p.deadline) {
			delete(ep.pending, k)
			expired = append(expired, p)
		}
	}
	ep.mu.Unlock()
	for _, p := range expired {
		p.close()
		ep.sec.expired.Add(1)
	}
}

// clientHandshake runs the secure handshake of Dial, retransmitting on a
// doubling timer, and returns the protection of the new connection.
func (ep *endpoint) clientHandshake(ctx context.Context, raddr net.Addr) (*connSecurity, error) {
	sc := ep.set.security
	id := sc.Identity
	if id == nil {
		var err error
		if _, id, err = ed25519.GenerateKey(sc.rand()); err != nil {
			return nil, err
		}
	}
	hs, err := secure.NewClientHandshake(secure.ClientConfig{
		Identity:   id,
		ServerKey:  sc.ServerKey,
		Token:      sc.Token,
		RekeyAfter: sc.RekeyAfter,
	}, sc.rand())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	giveUp := time.NewTimer(ep.set.handshake)
	defer giveUp.Stop()
	rto := handshakeRTO
	resend := time.NewTimer(rto)
	defer resend.Stop()
	ep.write(raddr, [][]byte{hs.Packet()})
	for hs.Session() == nil {
		select {
		case pkt := <-ep.handshakes:
			reply, _ := hs.Handle(pkt)
			if err := hs.Err(); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrHandshake, err)
			}
			if reply != nil {
				ep.write(raddr, [][]byte{reply})
				rto = handshakeRTO
				resend.Reset(rto)
			}
		case <-resend.C:
			ep.write(raddr, [][]byte{hs.Packet()})
			rto = min(2*rto, maxHandshakeRTO)
			resend.Reset(rto)
		case <-giveUp.C:
			return nil, fmt.Errorf("%w: no answer to the secure handshake; a server without encryption "+
				"(tickwire serve --insecure) answers only a client dialing without Config.Security", ErrTimeout)
		case err := <-ep.unreachable:
			return nil, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &connSecurity{sess: hs.Session(), peer: hs.ServerKey(), finish: hs.Packet()}, nil
}

// Retransmission of the client's handshake packets.
const (
	handshakeRTO    = 250 * time.Millisecond
	maxHandshakeRTO = 2 * time.Second
)
