package secure

import (
	"crypto/rand"
	"net/netip"
	"testing"
	"time"
)

// BenchmarkHandshake is one full handshake, client and server together:
// Hello → Challenge → Initiate → ServerHello → Finish, with real
// randomness, two X25519 operations, two Ed25519 signatures and two
// verifications.
func BenchmarkHandshake(b *testing.B) {
	s, err := NewServer(ServerConfig{Identity: key(b, 1)}, rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	cfg := ClientConfig{Identity: key(b, 2), ServerKey: s.PublicKey()}
	now := t0
	i := 0
	for b.Loop() {
		i++
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), uint16(i))
		now = now.Add(time.Second) // keep per-address buckets full
		c, err := NewClientHandshake(cfg, rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		ch, _ := s.HandleUnvalidated(c.Packet(), addr, now)
		in, _ := c.Handle(ch)
		u, sh, err := s.Accept(in, addr, now)
		if err != nil {
			b.Fatal(err)
		}
		fin, _ := c.Handle(sh)
		a, err := u.Finish(fin, now)
		if err != nil {
			b.Fatal(err)
		}
		a.Close()
	}
}

// datagramPayload is the plaintext of a 1,200-byte datagram: the MTU less
// the transport's 24-byte header and the seal overhead.
const datagramPayload = 1200 - 24 - Overhead

// BenchmarkSealOpen1200 seals and opens one 1,200-byte datagram (bytes/s
// counts the datagram once).
func BenchmarkSealOpen1200(b *testing.B) {
	a, r := sessions(0)
	header := testHeader(0)
	plain := make([]byte, datagramPayload)
	sealed := make([]byte, 0, 1200)
	opened := make([]byte, 0, 1200)
	b.SetBytes(1200)
	var seq uint32
	for b.Loop() {
		seq++
		var err error
		if sealed, err = a.Seal(sealed[:0], seq, header, plain); err != nil {
			b.Fatal(err)
		}
		if opened, err = r.Open(opened[:0], seq, header, sealed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeal1200 seals one 1,200-byte datagram.
func BenchmarkSeal1200(b *testing.B) {
	a, _ := sessions(0)
	header := testHeader(0)
	plain := make([]byte, datagramPayload)
	sealed := make([]byte, 0, 1200)
	b.SetBytes(1200)
	var seq uint32
	for b.Loop() {
		seq++
		sealed, _ = a.Seal(sealed[:0], seq, header, plain)
	}
}

// BenchmarkOpenTampered is the cost of rejecting a forged 1,200-byte
// datagram (the price of a flood of forgeries).
func BenchmarkOpenTampered(b *testing.B) {
	a, r := sessions(0)
	header := testHeader(1)
	sealed, _ := a.Seal(nil, 1, header, make([]byte, datagramPayload))
	sealed[10] ^= 1
	opened := make([]byte, 0, 1200)
	b.SetBytes(1200)
	for b.Loop() {
		if _, err := r.Open(opened[:0], 1, header, sealed); err == nil {
			b.Fatal("forgery opened")
		}
	}
}

// BenchmarkHelloFlood is the server's cost per spoofed Hello (one HMAC).
func BenchmarkHelloFlood(b *testing.B) {
	s := newServer(b, ServerConfig{})
	hello := newClient(b, ClientConfig{}, 1).Packet()
	b.SetBytes(HelloSize)
	for b.Loop() {
		if _, ok := s.HandleUnvalidated(hello, clientAddr, t0); !ok {
			b.Fatal("not answered")
		}
	}
}

// BenchmarkForgedInitiate is the server's cost per Initiate with a forged
// cookie (two HMACs, then dropped).
func BenchmarkForgedInitiate(b *testing.B) {
	s := newServer(b, ServerConfig{})
	in := appendInitiate(nil, &initiateMsg{})
	b.SetBytes(InitiateSize)
	for b.Loop() {
		if _, _, err := s.Accept(in, clientAddr, t0); err == nil {
			b.Fatal("accepted")
		}
	}
}
