package transport

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/secure"
)

// testKey returns a deterministic Ed25519 key.
func testKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

// secureConfigs returns a server and a client configuration; the client
// pins the server key.
func secureConfigs(seed uint64) (server, client Config) {
	srv := testKey(1)
	server = Config{Security: &SecurityConfig{Identity: srv, Rand: rand.NewChaCha8([32]byte{byte(seed)})}}
	client = Config{Security: &SecurityConfig{
		Identity:  testKey(2),
		ServerKey: srv.Public().(ed25519.PublicKey),
		Rand:      rand.NewChaCha8([32]byte{byte(seed), 1}),
	}}
	return server, client
}

// tapConn records the datagrams written through a PacketConn.
type tapConn struct {
	net.PacketConn
	mu   sync.Mutex
	sent [][]byte
}

func (c *tapConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	c.mu.Lock()
	c.sent = append(c.sent, append([]byte(nil), b...))
	c.mu.Unlock()
	return c.PacketConn.WriteTo(b, addr)
}

// lastDatagram returns the last transport datagram (not a handshake
// packet) written.
func (c *tapConn) lastDatagram(t *testing.T) []byte {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.sent) - 1; i >= 0; i-- {
		if secure.Classify(c.sent[i]) == secure.KindNone {
			return c.sent[i]
		}
	}
	t.Fatal("no datagram sent")
	return nil
}

// securePair connects a client and a server over an in-memory network.
func securePair(t *testing.T, scfg, ccfg Config) (l *Listener, cc, sc *Conn, client *tapConn, mem *netsim.MemConn, srvAddr net.Addr) {
	t.Helper()
	mn := netsim.NewMemNetwork()
	a, _ := mn.ListenPacket("")
	b, _ := mn.ListenPacket("")
	l, err := Listen(t.Context(), b, scfg)
	if err != nil {
		t.Fatal(err)
	}
	tap := &tapConn{PacketConn: a}
	var aerr error
	var wg sync.WaitGroup
	wg.Go(func() { sc, aerr = l.Accept(t.Context()) })
	cc, err = Dial(t.Context(), tap, b.LocalAddr(), ccfg)
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	wg.Wait()
	if aerr != nil {
		t.Fatal(aerr)
	}
	return l, cc, sc, tap, a, b.LocalAddr()
}

func exchange(t *testing.T, from, to *Conn, n int) {
	t.Helper()
	for i := range n {
		if err := from.Send(ChannelActions, fmt.Appendf(nil, "msg %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		m, err := to.Receive(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("msg %d", i); string(m.Data) != want {
			t.Fatalf("got %q, want %q", m.Data, want)
		}
	}
}

func TestSecureConnExchangesAndProvesIdentities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(1)
		l, cc, sc, _, _, _ := securePair(t, scfg, ccfg)
		defer l.Close()
		defer cc.Close()
		exchange(t, cc, sc, 50)
		exchange(t, sc, cc, 50)
		cs, ok := cc.Security()
		if !ok || !cs.PeerKey.Equal(l.PublicKey()) {
			t.Fatalf("client sees server key %x, want %x", cs.PeerKey, l.PublicKey())
		}
		ss, ok := sc.Security()
		if !ok || !ss.PeerKey.Equal(testKey(2).Public()) {
			t.Fatalf("server sees client key %x", ss.PeerKey)
		}
		if ss.Stats.Opened == 0 || cs.Stats.Sealed == 0 || ss.Stats.Tampered != 0 {
			t.Fatalf("session stats client %+v server %+v", cs.Stats, ss.Stats)
		}
		st := l.Stats()
		if st.Handshake.Established != 1 || st.Connections != 1 || st.Pending != 0 {
			t.Fatalf("listener stats %+v", st)
		}
	})
}

func TestSecureReplayedDatagramRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(2)
		l, cc, sc, tap, mem, srv := securePair(t, scfg, ccfg)
		defer l.Close()
		defer cc.Close()
		exchange(t, cc, sc, 1)
		synctest.Wait()
		dg := tap.lastDatagram(t)
		for range 3 {
			mem.WriteTo(dg, srv) // from the client's own address
		}
		synctest.Wait()
		if got := l.Stats().Security.Replayed; got != 3 {
			t.Fatalf("replayed = %d, want 3", got)
		}
		exchange(t, cc, sc, 5) // the connection is unharmed
	})
}

func TestSecureTamperedDatagramDroppedAndCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(3)
		l, cc, sc, tap, mem, srv := securePair(t, scfg, ccfg)
		defer l.Close()
		defer cc.Close()
		exchange(t, cc, sc, 1)
		synctest.Wait()
		dg := tap.lastDatagram(t)
		// Flip a bit of the clear header (authenticated data), of the
		// ciphertext and of the tag; advance the sequence so the replay
		// window does not catch them first.
		for i, pos := range []int{5, len(dg) - 20, len(dg) - 1} {
			bad := append([]byte(nil), dg...)
			bad[9] += byte(100 + i) // sequence
			bad[pos] ^= 0x40
			mem.WriteTo(bad, srv)
		}
		synctest.Wait()
		st := l.Stats().Security
		if st.Tampered != 3 || st.Replayed != 0 {
			t.Fatalf("security stats %+v, want 3 tampered", st)
		}
		if s, _ := sc.Security(); s.Stats.Tampered != 3 {
			t.Fatalf("connection counted %d tampered", s.Stats.Tampered)
		}
		exchange(t, cc, sc, 5)
	})
}

func TestSecureWrongPinnedKeyFailsDial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := netsim.NewMemNetwork()
		a, _ := mn.ListenPacket("")
		b, _ := mn.ListenPacket("")
		scfg, ccfg := secureConfigs(4)
		l, err := Listen(t.Context(), b, scfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ccfg.Security.ServerKey = testKey(9).Public().(ed25519.PublicKey)
		_, err = Dial(t.Context(), a, b.LocalAddr(), ccfg)
		if !errors.Is(err, secure.ErrServerKeyMismatch) || !errors.Is(err, ErrHandshake) {
			t.Fatalf("dial error %v, want server key mismatch", err)
		}
		synctest.Wait()
		if st := l.Stats(); st.Connections != 0 {
			t.Fatalf("%d connections after a failed handshake", st.Connections)
		}
	})
}

func TestSecureConnectTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mm := testKey(7)
		scfg, ccfg := secureConfigs(5)
		scfg.Security.Matchmaker = mm.Public().(ed25519.PublicKey)
		token := func(expires time.Time) []byte {
			tok, err := secure.IssueToken(mm, secure.Token{
				Server:   testKey(1).Public().(ed25519.PublicKey),
				Player:   testKey(2).Public().(ed25519.PublicKey),
				PlayerID: 42,
				Expires:  expires,
			})
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		mn := netsim.NewMemNetwork()
		b, _ := mn.ListenPacket("")
		l, err := Listen(t.Context(), b, scfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		dial := func(tok []byte) (*Conn, error) {
			a, _ := mn.ListenPacket("")
			c := ccfg
			sc := *c.Security
			sc.Token = tok
			c.Security = &sc
			return Dial(t.Context(), a, b.LocalAddr(), c)
		}
		if _, err := dial(token(time.Now().Add(-time.Second))); !errors.Is(err, secure.ErrTokenExpired) || !errors.Is(err, secure.ErrRefused) {
			t.Fatalf("expired token: %v", err)
		}
		if _, err := dial(nil); !errors.Is(err, secure.ErrTokenRequired) {
			t.Fatalf("no token: %v", err)
		}
		cc, err := dial(token(time.Now().Add(time.Minute)))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		sc, err := l.Accept(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := sc.Security(); s.Token == nil || s.Token.PlayerID != 42 {
			t.Fatalf("server sees token %+v", s.Token)
		}
		st := l.Stats().Handshake
		if st.Refused[secure.RefuseTokenExpired] != 1 || st.Refused[secure.RefuseTokenRequired] != 1 {
			t.Fatalf("refusals %v", st.Refused)
		}
	})
}

func TestSecureLimitsRefuseWithReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(6)
		scfg.Security.Limits = secure.Limits{MaxPerIP: 2, MaxConnections: 3}
		mn := netsim.NewMemNetwork()
		b, _ := mn.ListenPacket("192.0.2.10:7777")
		l, err := Listen(t.Context(), b, scfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		dial := func(ip string) (*Conn, error) {
			a, err := mn.ListenPacket(ip + ":0")
			if err != nil {
				t.Fatal(err)
			}
			return Dial(t.Context(), a, b.LocalAddr(), ccfg)
		}
		var conns []*Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for _, ip := range []string{"192.0.2.1", "192.0.2.1", "192.0.2.2"} {
			c, err := dial(ip)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		if _, err := dial("192.0.2.1"); !errors.Is(err, secure.ErrServerFull) {
			t.Fatalf("over MaxConnections: %v", err)
		}
		conns[2].Close()
		conns = conns[:2]
		synctest.Wait()
		if _, err := dial("192.0.2.1"); !errors.Is(err, secure.ErrTooManyFromIP) {
			t.Fatalf("over MaxPerIP: %v", err)
		}
		st := l.Stats().Handshake
		if st.Refused[secure.RefuseServerFull] == 0 || st.Refused[secure.RefuseTooManyFromIP] != 1 {
			t.Fatalf("refusals %v", st.Refused)
		}
	})
}

func TestSecureNewConnectionRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(12)
		scfg.Security.Limits = secure.Limits{NewPerSecond: 2}
		mn := netsim.NewMemNetwork()
		b, _ := mn.ListenPacket("192.0.2.10:7777")
		l, err := Listen(t.Context(), b, scfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		dial := func() (*Conn, error) {
			a, _ := mn.ListenPacket("192.0.2.1:0")
			return Dial(t.Context(), a, b.LocalAddr(), ccfg)
		}
		for range 2 { // the burst
			c, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
		}
		if _, err := dial(); !errors.Is(err, secure.ErrRateLimited) || !errors.Is(err, ErrHandshake) {
			t.Fatalf("third connection in the same second: %v", err)
		}
		time.Sleep(time.Second)
		c, err := dial()
		if err != nil {
			t.Fatalf("a second later: %v", err)
		}
		c.Close()
		if n := l.Stats().Handshake.Refused[secure.RefuseRateLimited]; n != 1 {
			t.Fatalf("%d rate refusals counted", n)
		}
	})
}

func TestSecureAuthenticatedIdleLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(13)
		// The transport's own idle timeout is longer than the
		// authenticated limit and keepalives are off in effect: the
		// security limit ends the connection.
		scfg.Security.Limits = secure.Limits{IdleAuthenticated: 30 * time.Second}
		scfg.IdleTimeout, ccfg.IdleTimeout = time.Hour, time.Hour
		scfg.KeepAliveInterval, ccfg.KeepAliveInterval = time.Hour, time.Hour
		l, cc, sc, _, _, _ := securePair(t, scfg, ccfg)
		defer l.Close()
		defer cc.Close()
		exchange(t, cc, sc, 1)
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if _, err := sc.Receive(t.Context()); !errors.Is(err, ErrTimeout) {
			t.Fatalf("server connection: %v", err)
		}
	})
}

func TestSecureRekeyThroughDriver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(7)
		scfg.Security.RekeyAfter, ccfg.Security.RekeyAfter = 4, 4
		l, cc, sc, _, _, _ := securePair(t, scfg, ccfg)
		defer l.Close()
		defer cc.Close()
		for range 10 {
			exchange(t, cc, sc, 10)
			exchange(t, sc, cc, 10)
			time.Sleep(10 * time.Millisecond) // a datagram per round, not one for all
		}
		cs, _ := cc.Security()
		ss, _ := sc.Security()
		if cs.Stats.KeyUpdatesSent < 2 || ss.Stats.KeyUpdatesReceived < 2 || ss.Stats.KeyUpdatesSent < 2 {
			t.Fatalf("key updates: client %+v server %+v", cs.Stats, ss.Stats)
		}
	})
}

func TestMemoryBudgetDisconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(8)
		scfg.MemoryBudget = 64 << 10
		l, cc, sc, _, _, _ := securePair(t, scfg, ccfg)
		defer l.Close()
		defer cc.Close()
		// The server's application does not read: undelivered messages
		// pile up past the budget.
		msg := bytes.Repeat([]byte{'x'}, 1000)
		for range 100 {
			err := cc.Send(ChannelChat, msg)
			if errors.Is(err, ErrPeerClosed) {
				break // the server aborted and told the client
			}
			if err != nil && !errors.Is(err, ErrBackpressure) {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
		}
		synctest.Wait()
		if err := cc.Send(ChannelChat, msg); !errors.Is(err, ErrPeerClosed) {
			t.Fatalf("the client was not told of the abort: Send returned %v", err)
		}
		if sc.State() != StateDisconnected {
			t.Fatalf("server connection %v", sc.State())
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var err error
		for err == nil {
			_, err = sc.Receive(ctx)
		}
		if !errors.Is(err, ErrMemoryBudget) {
			t.Fatalf("server connection ended with %v", err)
		}
		if n := l.Stats().OverBudget; n != 1 {
			t.Fatalf("%d budget disconnects counted", n)
		}
	})
}

func TestSecureHalfOpenHandshakeExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, _ := secureConfigs(9)
		mn := netsim.NewMemNetwork()
		b, _ := mn.ListenPacket("")
		l, err := Listen(t.Context(), b, scfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		a, _ := mn.ListenPacket("")
		hs, err := secure.NewClientHandshake(secure.ClientConfig{Identity: testKey(2)}, rand.NewChaCha8([32]byte{9}))
		if err != nil {
			t.Fatal(err)
		}
		// Hello, Challenge, Initiate, ServerHello; then the client goes
		// silent instead of sending its Finish.
		buf := make([]byte, 2048)
		a.WriteTo(hs.Packet(), b.LocalAddr())
		n, _, _ := a.ReadFrom(buf)
		initiate, err := hs.Handle(buf[:n])
		if err != nil {
			t.Fatal(err)
		}
		a.WriteTo(initiate, b.LocalAddr())
		if n, _, _ = a.ReadFrom(buf); secure.Classify(buf[:n]) != secure.KindServerHello {
			t.Fatalf("got %v", secure.Classify(buf[:n]))
		}
		synctest.Wait()
		if st := l.Stats(); st.Pending != 1 || st.Handshake.Admission.Open != 1 {
			t.Fatalf("after the Initiate: %+v", st)
		}
		time.Sleep(59 * time.Second)
		a.WriteTo([]byte("poke"), b.LocalAddr()) // packets from unknown sources run the sweep
		synctest.Wait()
		if st := l.Stats(); st.Pending != 1 {
			t.Fatalf("expired before 60 s: %+v", st)
		}
		time.Sleep(2 * time.Second)
		x, _ := mn.ListenPacket("")
		x.WriteTo([]byte("poke"), b.LocalAddr())
		synctest.Wait()
		st := l.Stats()
		if st.Pending != 0 || st.Security.Expired != 1 || st.Handshake.Admission.Open != 0 {
			t.Fatalf("after 61 s: %+v", st)
		}
	})
}

func TestSecureAndPlaintextPeersDoNotConnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scfg, ccfg := secureConfigs(14)
		for _, tc := range []struct {
			name           string
			server, client Config
			hint           string // the dial error says which side wants encryption
		}{
			{"plaintext client", scfg, Config{}, "a server that wants encryption (tickwire serve does, unless --insecure) answers only a client dialing with Config.Security"},
			{"plaintext server", Config{}, ccfg, "a server without encryption (tickwire serve --insecure) answers only a client dialing without Config.Security"},
		} {
			tc.client.HandshakeTimeout = 2 * time.Second
			mn := netsim.NewMemNetwork()
			a, _ := mn.ListenPacket("")
			b, _ := mn.ListenPacket("")
			l, err := Listen(t.Context(), b, tc.server)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Dial(t.Context(), a, b.LocalAddr(), tc.client); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), tc.hint) {
				t.Fatalf("%s: dial error %v, want a timeout saying %q", tc.name, err, tc.hint)
			}
			synctest.Wait()
			if st := l.Stats(); st.Connections != 0 || st.Pending != 0 {
				t.Fatalf("%s: server state %+v", tc.name, st)
			}
			l.Close()
		}
	})
}
