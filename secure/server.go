package secure

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"time"
)

// ServerConfig configures the server side of the handshake.
type ServerConfig struct {
	// Identity is the server's Ed25519 key (required). Clients pin its
	// public half.
	Identity ed25519.PrivateKey
	// Matchmaker, when set, is the Ed25519 key that signs connect tokens;
	// the server then admits only clients with a valid token naming it.
	Matchmaker ed25519.PublicKey
	// CookiePeriod is the cookie time bucket. 0 means DefaultCookiePeriod.
	CookiePeriod time.Duration
	// Limits are the connection limits; the zero value gives the defaults.
	Limits Limits
	// RekeyAfter is the number of datagrams sealed per key phase.
	// 0 means DefaultRekeyAfter.
	RekeyAfter uint64
}

// ServerStats counts what the server did with handshake packets.
type ServerStats struct {
	// UnvalidatedIn and UnvalidatedOut are the bytes received from and
	// sent to sources not yet validated by a cookie (Hellos, garbage,
	// Initiates with a bad cookie) and the answers to them. Out never
	// exceeds In: that is the anti-amplification guarantee.
	UnvalidatedIn, UnvalidatedOut uint64

	Hellos      uint64 // valid Hellos received
	Challenges  uint64 // Challenges sent
	Dropped     uint64 // packets from unvalidated sources dropped without an answer
	BadCookies  uint64 // well-formed Initiates with an invalid or expired cookie
	Accepted    uint64 // Initiates accepted: connection created, ServerHello sent
	Established uint64 // handshakes completed
	Failed      uint64 // handshakes failed after acceptance (bad signature, wrong player)

	// Refused counts refusals by reason (index RefusalReason).
	Refused [refusalReasons]uint64

	Admission AdmissionStats
}

// Server is the listener-wide side of the handshake. Before a client
// proves its address it keeps no per-client state: HandleUnvalidated
// answers a Hello with a Challenge computed from a secret, and Accept
// creates a connection only for an Initiate that echoes a valid cookie and
// passes the connection limits and the token check.
//
// Server is pure (no I/O, no clock; now is passed in) and safe for
// concurrent use: the per-connection handles it returns may live on other
// goroutines.
type Server struct {
	cfg ServerConfig
	lim Limits // cfg.Limits with defaults
	pub ed25519.PublicKey

	mu      sync.Mutex
	rand    io.Reader
	cookies *CookieJar
	adm     Admission
	stats   ServerStats
}

// NewServer returns a server drawing its cookie secret and ephemeral keys
// from rand (crypto/rand.Reader in production).
func NewServer(cfg ServerConfig, rand io.Reader) (*Server, error) {
	if len(cfg.Identity) != ed25519.PrivateKeySize || cfg.Matchmaker != nil && len(cfg.Matchmaker) != KeySize {
		return nil, fmt.Errorf("%w: server identity or matchmaker key", ErrConfig)
	}
	var secret [32]byte
	if _, err := io.ReadFull(rand, secret[:]); err != nil {
		return nil, fmt.Errorf("secure: reading randomness: %w", err)
	}
	return &Server{
		cfg:     cfg,
		lim:     cfg.Limits.withDefaults(),
		pub:     cfg.Identity.Public().(ed25519.PublicKey),
		rand:    rand,
		cookies: NewCookieJar(secret, cfg.CookiePeriod),
		adm:     Admission{Limits: cfg.Limits},
	}, nil
}

// PublicKey returns the server's identity key, the one clients pin.
func (s *Server) PublicKey() ed25519.PublicKey { return s.pub }

// RotateCookieSecret replaces the cookie secret with fresh random bytes;
// cookies minted under the previous secret stay valid until they expire.
func (s *Server) RotateCookieSecret() error {
	var secret [32]byte
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.ReadFull(s.rand, secret[:]); err != nil {
		return fmt.Errorf("secure: reading randomness: %w", err)
	}
	s.cookies.Rotate(secret)
	return nil
}

// Stats returns the counters.
func (s *Server) Stats() ServerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Admission = s.adm.Stats()
	return st
}

// HandleUnvalidated answers a packet from a source with no connection. A
// valid Hello gets a Challenge (or a Refuse when the server is full), a
// Hello of another version a Refuse for RefuseVersion; any
// other packet (garbage, truncated, wrongly sized, unknown, and also
// Initiates, which go to Accept) gets nothing. It allocates no state: the
// cookie is recomputed when the Initiate echoes it. The answer is always
// smaller than the Hello.
func (s *Server) HandleUnvalidated(pkt []byte, from netip.AddrPort, now time.Time) (reply []byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.UnvalidatedIn += uint64(len(pkt))
	nonce, err := parseHello(pkt)
	if err != nil && !errors.Is(err, ErrVersion) {
		s.stats.Dropped++
		return nil, false
	}
	s.stats.Hellos++
	switch {
	case err != nil: // another version: say which this server speaks
		reply = appendRefuse(make([]byte, 0, RefuseSize), &nonce, RefuseVersion)
		s.stats.Refused[RefuseVersion]++
	case s.adm.Full():
		reply = appendRefuse(make([]byte, 0, RefuseSize), &nonce, RefuseServerFull)
		s.stats.Refused[RefuseServerFull]++
	default:
		cookie := s.cookies.Make(from, &nonce, now)
		reply = appendChallenge(make([]byte, 0, ChallengeSize), &nonce, &cookie)
		s.stats.Challenges++
	}
	s.stats.UnvalidatedOut += uint64(len(reply))
	return reply, true
}

// Accept handles an Initiate from a source with no connection. A
// malformed Initiate or one with a bad cookie gets nothing (ErrMalformed,
// ErrBadCookie). Once the cookie has validated the address, the connection
// limits and the connect token are checked; a refusal returns a Refuse
// packet to send (smaller than the Initiate) and the reason's sentinel
// error. Otherwise Accept creates the connection and returns it with the
// ServerHello to send.
//
// The driver routes later packets from the address to the returned
// connection, and resends the ServerHello through its Resend when the
// Initiate is retransmitted.
func (s *Server) Accept(pkt []byte, from netip.AddrPort, now time.Time) (Unauthenticated, []byte, error) {
	s.mu.Lock()
	m, err := parseInitiate(pkt)
	if err != nil {
		s.stats.UnvalidatedIn += uint64(len(pkt))
		s.stats.Dropped++
		s.mu.Unlock()
		return Unauthenticated{}, nil, err
	}
	if !s.cookies.Valid(from, &m.nonce, &m.cookie, now) {
		s.stats.UnvalidatedIn += uint64(len(pkt))
		s.stats.BadCookies++
		s.mu.Unlock()
		return Unauthenticated{}, nil, ErrBadCookie
	}
	// The address is validated from here on.
	if err := s.adm.Admit(from.Addr(), now); err != nil {
		return Unauthenticated{}, s.refuseLocked(&m.nonce, err), err
	}
	var ephSeed [32]byte
	_, err = io.ReadFull(s.rand, ephSeed[:])
	s.mu.Unlock()

	// Signatures and key agreement run outside the lock.
	h := &serverHandshake{nonce: m.nonce, init: clone(pkt), rekeyAfter: s.cfg.RekeyAfter}
	if err == nil {
		err = s.checkToken(h, &m, now)
	}
	if err == nil {
		err = h.respond(&m, ephSeed[:], s.cfg.Identity, s.pub)
	}
	if err != nil {
		s.mu.Lock()
		s.adm.Release(from.Addr())
		return Unauthenticated{}, s.refuseLocked(&m.nonce, err), err
	}
	s.mu.Lock()
	s.stats.Accepted++
	s.mu.Unlock()
	c := &conn{srv: s, addr: from, state: stateUnauthenticated, hs: h, last: now,
		idle: s.lim.IdleUnauthenticated}
	return Unauthenticated{c}, h.serverHello, nil
}

// refuseLocked counts a refusal, unlocks, and returns the Refuse packet for
// err, or nil when err is not a refusal reason.
func (s *Server) refuseLocked(nonce *[NonceSize]byte, err error) []byte {
	defer s.mu.Unlock()
	r := reasonFor(err)
	if r == 0 {
		s.stats.Failed++
		return nil
	}
	s.stats.Refused[r]++
	return appendRefuse(make([]byte, 0, RefuseSize), nonce, r)
}

// checkToken verifies the Initiate's connect token, required when a
// matchmaker key is configured.
func (s *Server) checkToken(h *serverHandshake, m *initiateMsg, now time.Time) error {
	if s.cfg.Matchmaker == nil {
		return nil // tokens are neither required nor checked
	}
	if m.token == nil {
		return ErrTokenRequired
	}
	t, err := VerifyToken(m.token, s.cfg.Matchmaker, s.pub, now)
	if err != nil {
		return err
	}
	h.token = &t
	return nil
}

// connEvent updates the counters when a connection completes or fails its
// handshake, or ends.
func (s *Server) connEvent(addr netip.AddrPort, established, failed, released bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case established:
		s.stats.Established++
	case failed:
		s.stats.Failed++
	}
	if released {
		s.adm.Release(addr.Addr())
	}
}

// serverHandshake is one connection's handshake state after the cookie:
// the transcript so far and the keys to open the client's Finish.
type serverHandshake struct {
	nonce       [NonceSize]byte
	init        []byte // the Initiate
	serverHello []byte
	prk         []byte
	clientHS    secret
	token       *Token
	rekeyAfter  uint64
}

// respond computes the ServerHello: a fresh X25519 key, the handshake
// secrets, and the server's identity and transcript signature sealed under
// the server handshake secret.
func (h *serverHandshake) respond(m *initiateMsg, ephSeed []byte, id ed25519.PrivateKey, pub ed25519.PublicKey) error {
	eph, err := ecdh.X25519().NewPrivateKey(ephSeed)
	if err != nil {
		return err
	}
	peer, err := ecdh.X25519().NewPublicKey(m.eph[:])
	if err != nil {
		return fmt.Errorf("%w: client ephemeral key", ErrMalformed)
	}
	shared, err := eph.ECDH(peer)
	if err != nil { // low-order point
		return fmt.Errorf("%w: client ephemeral key", ErrMalformed)
	}
	h.prk = extract(shared)
	sh := appendServerHelloClear(make([]byte, 0, ServerHelloSize), &m.nonce, eph.PublicKey().Bytes())
	th1 := transcript(h.init, sh)
	serverHS := deriveSecret(h.prk, labelServerHS, &th1)
	h.clientHS = deriveSecret(h.prk, labelClientHS, &th1)
	ths := transcript(h.init, sh, pub)
	h.serverHello = sealIdentity(sh, &serverHS, pub, signTranscript(id, sigContextServer, &ths))
	return nil
}

// finish checks the client's Finish and derives the session. ErrMalformed,
// ErrUnexpected and ErrAuth leave the handshake waiting; ErrSignature and
// ErrTokenWrongPlayer are fatal.
func (h *serverHandshake) finish(pkt []byte) (*Session, Peer, error) {
	nonce, sealed, err := parseFinish(pkt)
	if err != nil {
		return nil, Peer{}, err
	}
	if nonce != h.nonce {
		return nil, Peer{}, ErrUnexpected
	}
	key, sig, err := openIdentity(&h.clientHS, pkt[:headSize], sealed)
	if err != nil {
		return nil, Peer{}, err
	}
	thc := transcript(h.init, h.serverHello, key)
	if !verifyTranscript(key, sigContextClient, &thc, sig) {
		return nil, Peer{}, fmt.Errorf("%w: client", ErrSignature)
	}
	if h.token != nil && !h.token.Player.Equal(key) {
		return nil, Peer{}, ErrTokenWrongPlayer
	}
	th := transcript(h.init, h.serverHello, pkt)
	sess := newSession(deriveSecret(h.prk, labelServerData, &th), deriveSecret(h.prk, labelClientData, &th), h.rekeyAfter)
	return sess, Peer{Key: key, Token: h.token}, nil
}

// fatal reports whether a finish error ends the handshake.
func fatal(err error) bool {
	return errors.Is(err, ErrSignature) || errors.Is(err, ErrTokenWrongPlayer)
}
