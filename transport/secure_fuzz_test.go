package transport

import (
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// handshakeInMemory runs the secure handshake between a client and a
// server without a network and returns both sides' datagram protection.
func handshakeInMemory(tb testing.TB) (client, server *connSecurity) {
	tb.Helper()
	now := time.Unix(1_700_000_000, 0)
	from := netip.MustParseAddrPort("192.0.2.1:4000")
	srv, err := secure.NewServer(secure.ServerConfig{Identity: testKey(1)}, rand.NewChaCha8([32]byte{1}))
	if err != nil {
		tb.Fatal(err)
	}
	hs, err := secure.NewClientHandshake(secure.ClientConfig{Identity: testKey(2)}, rand.NewChaCha8([32]byte{2}))
	if err != nil {
		tb.Fatal(err)
	}
	challenge, _ := srv.HandleUnvalidated(hs.Packet(), from, now)
	initiate, err := hs.Handle(challenge)
	if err != nil {
		tb.Fatal(err)
	}
	u, serverHello, err := srv.Accept(initiate, from, now)
	if err != nil {
		tb.Fatal(err)
	}
	finish, err := hs.Handle(serverHello)
	if err != nil {
		tb.Fatal(err)
	}
	auth, err := u.Finish(finish, now)
	if err != nil {
		tb.Fatal(err)
	}
	return &connSecurity{sess: hs.Session()}, &connSecurity{auth: auth}
}

// clientDatagrams returns the plaintext datagrams a fresh client session
// sends over rounds timer turns step apart (its hello and resends).
func clientDatagrams(set *settings, now time.Time, rounds int, step time.Duration) [][]byte {
	cs := newSession(set, SessionParams{Client: true, ConnID: 9, InitialSeq: 100}, now)
	var plain [][]byte
	for i := range rounds {
		if i > 0 {
			now = now.Add(step)
			cs.HandleTimeout(now)
		}
		for {
			d, ok := cs.AppendDatagram(nil, now)
			if !ok {
				break
			}
			plain = append(plain, d)
		}
	}
	return plain
}

// FuzzSecureDatagram feeds arbitrary bytes to the driver's receive path of
// an established encrypted connection: open, then the session. Nothing
// may panic, and only datagrams the client really sealed may open.
func FuzzSecureDatagram(f *testing.F) {
	client, server := handshakeInMemory(f)
	now := time.Unix(1_700_000_000, 0)
	set, err := Config{Security: &SecurityConfig{}}.resolve()
	if err != nil {
		f.Fatal(err)
	}
	ss := newSession(set, SessionParams{ConnID: 9, InitialSeq: 500, Token: 1}, now)
	sealed := make(map[string]bool)
	plain := clientDatagrams(set, now, 8, 10*time.Millisecond)
	for _, d := range client.seal(plain) {
		sealed[string(d)] = true
		f.Add(append([]byte(nil), d...))
	}
	f.Add([]byte{})
	f.Add(make([]byte, headerLen+secure.Overhead))
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := string(b)
		out, err := server.open(b, now)
		if err != nil {
			return
		}
		if !sealed[orig] {
			t.Fatalf("a datagram the client never sealed opened: %x", orig)
		}
		ss.HandleDatagram(out, now)
	})
}
