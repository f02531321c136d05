package secure

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
)

// ClientConfig configures the client side of the handshake.
type ClientConfig struct {
	// Identity is the client's Ed25519 key (required).
	Identity ed25519.PrivateKey
	// ServerKey pins the server's identity: when set, a server proving any
	// other key fails the handshake with ErrServerKeyMismatch.
	ServerKey ed25519.PublicKey
	// Token is an optional connect token (TokenSize bytes).
	Token []byte
	// RekeyAfter is the number of datagrams sealed per key phase.
	// 0 means DefaultRekeyAfter.
	RekeyAfter uint64
}

type clientState uint8

const (
	clientAwaitChallenge clientState = iota
	clientAwaitServerHello
	clientEstablished
	clientFailed
)

// ClientHandshake is the client side of the handshake as a pure state
// machine: Packet gives the packet to send (Hello, then Initiate, then
// Finish), Handle consumes the server's packets. No I/O, no clock: the
// driver retransmits Packet on its own timer until the handshake completes
// and, after it completes, until the Session opens a datagram from the
// server (which proves the server got the Finish).
type ClientHandshake struct {
	cfg     ClientConfig
	state   clientState
	err     error
	nonce   [NonceSize]byte
	eph     *ecdh.PrivateKey
	last    []byte // packet to (re)send
	init    []byte // the Initiate, first part of the transcript
	server  ed25519.PublicKey
	session *Session
}

// NewClientHandshake starts a handshake, drawing the ephemeral X25519 key
// and the nonce from rand (crypto/rand.Reader in production).
func NewClientHandshake(cfg ClientConfig, rand io.Reader) (*ClientHandshake, error) {
	if len(cfg.Identity) != ed25519.PrivateKeySize ||
		cfg.ServerKey != nil && len(cfg.ServerKey) != KeySize ||
		cfg.Token != nil && len(cfg.Token) != TokenSize {
		return nil, fmt.Errorf("%w: client keys or token", ErrConfig)
	}
	var seed [32 + NonceSize]byte
	if _, err := io.ReadFull(rand, seed[:]); err != nil {
		return nil, fmt.Errorf("secure: reading randomness: %w", err)
	}
	eph, err := ecdh.X25519().NewPrivateKey(seed[:32])
	if err != nil {
		return nil, err
	}
	c := &ClientHandshake{cfg: cfg, eph: eph}
	copy(c.nonce[:], seed[32:])
	c.last = appendHello(make([]byte, 0, HelloSize), &c.nonce)
	return c, nil
}

// Packet returns the packet to send now and on every retransmission:
// Hello, Initiate or (once established) Finish.
func (c *ClientHandshake) Packet() []byte { return c.last }

// Session returns the established session, or nil before the handshake
// completes.
func (c *ClientHandshake) Session() *Session { return c.session }

// ServerKey returns the server identity the handshake proved, or nil
// before it completes.
func (c *ClientHandshake) ServerKey() ed25519.PublicKey { return c.server }

// Err returns the error that failed the handshake, or nil.
func (c *ClientHandshake) Err() error { return c.err }

// Handle consumes a packet from the server and returns the packet to send
// in answer, if any. ErrMalformed, ErrUnexpected and ErrAuth mean the
// packet was ignored (garbage, stray, or injected) and the handshake goes
// on. ErrRefused (with the reason's sentinel), ErrServerKeyMismatch and
// ErrSignature fail the handshake for good; so does any error once failed.
// A Refuse of another version, or one for RefuseVersion, fails it with
// ErrRefused and ErrVersion, naming the server's version.
func (c *ClientHandshake) Handle(pkt []byte) ([]byte, error) {
	if c.state == clientFailed {
		return nil, c.err
	}
	switch Classify(pkt) {
	case KindChallenge:
		nonce, cookie, err := parseChallenge(pkt)
		if err != nil {
			return nil, err
		}
		if c.state != clientAwaitChallenge || nonce != c.nonce {
			return nil, ErrUnexpected
		}
		m := initiateMsg{nonce: c.nonce, cookie: cookie, token: c.cfg.Token}
		copy(m.eph[:], c.eph.PublicKey().Bytes())
		c.init = appendInitiate(make([]byte, 0, InitiateSize), &m)
		c.last, c.state = c.init, clientAwaitServerHello
		return c.last, nil
	case KindServerHello:
		if c.state != clientAwaitServerHello {
			return nil, ErrUnexpected
		}
		return c.handleServerHello(pkt)
	case KindRefuse:
		nonce, reason, err := parseRefuse(pkt)
		if err != nil && !errors.Is(err, ErrVersion) {
			return nil, err
		}
		if c.state == clientEstablished || nonce != c.nonce {
			return nil, ErrUnexpected
		}
		if err != nil || reason == RefuseVersion {
			return nil, c.fail(fmt.Errorf("%w: %w: the server speaks handshake version %d, this client %d", ErrRefused, ErrVersion, pkt[1], Version))
		}
		return nil, c.fail(fmt.Errorf("%w: %w", ErrRefused, reason.Err()))
	}
	return nil, fmt.Errorf("%w: not a server handshake packet", ErrMalformed)
}

func (c *ClientHandshake) fail(err error) error {
	c.state, c.err, c.last = clientFailed, err, nil
	return err
}

func (c *ClientHandshake) handleServerHello(pkt []byte) ([]byte, error) {
	nonce, eph, sealed, err := parseServerHello(pkt)
	if err != nil {
		return nil, err
	}
	if nonce != c.nonce {
		return nil, ErrUnexpected
	}
	peerEph, err := ecdh.X25519().NewPublicKey(eph[:])
	if err != nil {
		return nil, fmt.Errorf("%w: server ephemeral key", ErrMalformed)
	}
	shared, err := c.eph.ECDH(peerEph)
	if err != nil { // low-order point
		return nil, fmt.Errorf("%w: server ephemeral key", ErrMalformed)
	}
	prk := extract(shared)
	clear := pkt[:serverHelloClear]
	th1 := transcript(c.init, clear)
	serverHS := deriveSecret(prk, labelServerHS, &th1)
	clientHS := deriveSecret(prk, labelClientHS, &th1)
	serverKey, sig, err := openIdentity(&serverHS, clear, sealed)
	if err != nil {
		return nil, err
	}
	if c.cfg.ServerKey != nil && !c.cfg.ServerKey.Equal(serverKey) {
		return nil, c.fail(ErrServerKeyMismatch)
	}
	ths := transcript(c.init, clear, serverKey)
	if !verifyTranscript(serverKey, sigContextServer, &ths, sig) {
		return nil, c.fail(fmt.Errorf("%w: server", ErrSignature))
	}

	pub := c.cfg.Identity.Public().(ed25519.PublicKey)
	thc := transcript(c.init, pkt, pub)
	fin := appendHead(make([]byte, 0, FinishSize), KindFinish, &c.nonce)
	fin = sealIdentity(fin, &clientHS, pub, signTranscript(c.cfg.Identity, sigContextClient, &thc))

	th := transcript(c.init, pkt, fin)
	c.session = newSession(deriveSecret(prk, labelClientData, &th), deriveSecret(prk, labelServerData, &th), c.cfg.RekeyAfter)
	c.server = serverKey
	c.last, c.state = fin, clientEstablished
	return fin, nil
}
