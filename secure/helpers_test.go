package secure

import (
	"crypto/ed25519"
	"errors"
	"io"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// seeded returns a deterministic randomness source.
func seeded(seed uint64) io.Reader {
	var s [32]byte
	s[0], s[1] = byte(seed), byte(seed>>8)
	return rand.NewChaCha8(s)
}

func key(t testing.TB, seed byte) ed25519.PrivateKey {
	t.Helper()
	var s [ed25519.SeedSize]byte
	s[0] = seed
	return ed25519.NewKeyFromSeed(s[:])
}

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

var clientAddr = netip.MustParseAddrPort("192.0.2.10:40000")

func newServer(t testing.TB, cfg ServerConfig) *Server {
	t.Helper()
	if cfg.Identity == nil {
		cfg.Identity = key(t, 1)
	}
	s, err := NewServer(cfg, seeded(100))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newClient(t testing.TB, cfg ClientConfig, seed uint64) *ClientHandshake {
	t.Helper()
	if cfg.Identity == nil {
		cfg.Identity = key(t, 2)
	}
	c, err := NewClientHandshake(cfg, seeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// handshake runs a full handshake between c and s from addr, failing the
// test on any error.
func handshake(t testing.TB, c *ClientHandshake, s *Server, addr netip.AddrPort, now time.Time) Authenticated {
	t.Helper()
	challenge, ok := s.HandleUnvalidated(c.Packet(), addr, now)
	if !ok {
		t.Fatal("hello not answered")
	}
	initiate, err := c.Handle(challenge)
	if err != nil {
		t.Fatalf("client on challenge: %v", err)
	}
	u, serverHello, err := s.Accept(initiate, addr, now)
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	fin, err := c.Handle(serverHello)
	if err != nil {
		t.Fatalf("client on server hello: %v", err)
	}
	a, err := u.Finish(fin, now)
	if err != nil {
		t.Fatalf("finish: %v", err)
	}
	return a
}

// exchange seals a payload on one side and opens it on the other.
func exchange(t testing.TB, seal func([]byte, uint32, []byte, []byte) ([]byte, error),
	open func([]byte, uint32, []byte, []byte) ([]byte, error), seq uint32, msg string) {
	t.Helper()
	hdr := testHeader(seq)
	sealed, err := seal(nil, seq, hdr, []byte(msg))
	if err != nil {
		t.Fatalf("seal %d: %v", seq, err)
	}
	got, err := open(nil, seq, hdr, sealed)
	if err != nil {
		t.Fatalf("open %d: %v", seq, err)
	}
	if string(got) != msg {
		t.Fatalf("opened %q, sealed %q", got, msg)
	}
}

// testHeader stands in for the transport's 24-byte datagram header.
func testHeader(seq uint32) []byte {
	h := make([]byte, 24)
	h[0] = 1
	h[8], h[9], h[10], h[11] = byte(seq>>24), byte(seq>>16), byte(seq>>8), byte(seq)
	return h
}

func netipWithPort(a netip.AddrPort, port uint16) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr(), port)
}

// errorsIs reports whether err matches every target.
func errorsIs(err error, targets ...error) bool {
	for _, target := range targets {
		if !errors.Is(err, target) {
			return false
		}
	}
	return true
}
