package transport

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// acceptOne accepts a connection in the background.
func acceptOne(ctx context.Context, l *Listener) <-chan *Conn {
	ch := make(chan *Conn, 1)
	go func() {
		c, _ := l.Accept(ctx)
		ch <- c
	}()
	return ch
}

func talk(t *testing.T, cc *Conn, accepted <-chan *Conn) {
	t.Helper()
	sc := <-accepted
	if sc == nil {
		t.Fatal("nothing accepted")
	}
	exchange(t, cc, sc, 100)
	exchange(t, sc, cc, 100)
	big := strings.Repeat("world data ", 20_000) // fragmented and compressed
	if err := sc.Send(ChannelWorld, []byte(big)); err != nil {
		t.Fatal(err)
	}
	m, err := cc.Receive(t.Context())
	if err != nil || string(m.Data) != big {
		t.Fatalf("big message: %v, %d bytes", err, len(m.Data))
	}
}

func TestTCPFallback(t *testing.T) {
	for _, name := range []string{"plaintext", "encrypted"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			scfg, ccfg := Config{}, Config{}
			if name == "encrypted" {
				scfg, ccfg = secureConfigs(20)
			}
			l, err := ListenTCP(ctx, "127.0.0.1:0", scfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			accepted := acceptOne(ctx, l)
			cc, err := DialTCP(ctx, l.Addr().String(), ccfg)
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			if cc.RemoteAddr().Network() != "tcp" {
				t.Fatalf("remote address %v", cc.RemoteAddr())
			}
			talk(t, cc, accepted)
			if _, ok := cc.Security(); ok != (name == "encrypted") {
				t.Fatalf("security %v", ok)
			}
		})
	}
}

func TestWebSocketFallback(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	scfg, ccfg := secureConfigs(21)
	mn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(ctx, mn, scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hs := httptest.NewServer(l.WebSocketHandler())
	defer hs.Close()
	accepted := acceptOne(ctx, l)
	cc, err := DialWebSocket(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/play", ccfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	if cc.RemoteAddr().Network() != "websocket" {
		t.Fatalf("remote address %v", cc.RemoteAddr())
	}
	talk(t, cc, accepted)
	if s, ok := cc.Security(); !ok || !s.PeerKey.Equal(l.PublicKey()) {
		t.Fatal("WebSocket connection not encrypted")
	}
}

// TestHybridDialFallsBack serves UDP, TCP and WebSocket from one Listener,
// and dials it with UDP (then TCP) blackholed: a socket that reads and
// never answers.
func TestHybridDialFallsBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	scfg, ccfg := secureConfigs(22)
	l, err := ListenUDP(ctx, "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.ServeTCP(ln); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(l.WebSocketHandler())
	defer hs.Close()
	wsURL := "ws" + strings.TrimPrefix(hs.URL, "http")

	blackUDP, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer blackUDP.Close()
	blackTCP, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer blackTCP.Close()

	for _, tc := range []struct {
		hc   HybridConfig
		want string
	}{
		{HybridConfig{UDP: l.Addr().String(), TCP: ln.Addr().String(), WebSocketURL: wsURL}, "udp"},
		{HybridConfig{UDP: blackUDP.LocalAddr().String(), TCP: ln.Addr().String(), WebSocketURL: wsURL}, "tcp"},
		{HybridConfig{UDP: blackUDP.LocalAddr().String(), TCP: blackTCP.Addr().String(), WebSocketURL: wsURL}, "websocket"},
	} {
		tc.hc.Timeout = 300 * time.Millisecond
		accepted := acceptOne(ctx, l)
		cc, err := DialHybrid(ctx, tc.hc, ccfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := cc.RemoteAddr().Network(); got != tc.want {
			t.Fatalf("connected over %s, want %s", got, tc.want)
		}
		sc := <-accepted
		exchange(t, cc, sc, 10)
		exchange(t, sc, cc, 10)
		cc.Close()
	}
	if st := l.Stats(); st.Handshake.Established != 3 {
		t.Fatalf("%d handshakes established, want 3", st.Handshake.Established)
	}
}

func TestHybridDialStopsOnRefusal(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	scfg, ccfg := secureConfigs(23)
	l, err := ListenUDP(ctx, "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ccfg.Security.ServerKey = testKey(9).Public().(ed25519.PublicKey)
	_, err = DialHybrid(ctx, HybridConfig{UDP: l.Addr().String(), TCP: "127.0.0.1:1"}, ccfg)
	if err == nil || strings.Contains(err.Error(), "tcp") {
		t.Fatalf("dial error %v: should stop after UDP's handshake failure", err)
	}
}

// TestStreamEndEndsConnection: when a client's TCP stream drops without a
// goodbye, the server's connection ends at once instead of waiting for
// the idle timeout (an hour here).
func TestStreamEndEndsConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg := Config{IdleTimeout: time.Hour}
	l, err := ListenTCP(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := acceptOne(ctx, l)
	cc, err := DialTCP(ctx, l.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	sc := <-accepted
	exchange(t, cc, sc, 3)
	cc.ep.pc.Close() // the stream drops
	if _, err := sc.Receive(ctx); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("server connection ended with %v", err)
	}
	if _, err := cc.Receive(ctx); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("client connection ended with %v", err)
	}
}

// TestStreamsPerIPBounded: one address cannot hold more than twice the
// per-IP connection limit in raw TCP streams.
func TestStreamsPerIPBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	scfg, _ := secureConfigs(24)
	l, err := ListenTCP(ctx, "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ss := l.eps[0].pc.(*streamServer)
	count := func() int {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		return len(ss.streams)
	}
	const allowed = 10 // 2 × the default 5 per IP
	var d net.Dialer
	for i := range allowed + 1 {
		c, err := d.DialContext(ctx, "tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if i < allowed {
			waitFor(t, "the stream to register", func() bool { return count() == i+1 })
			continue
		}
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("stream over the per-IP limit: read %v, want it closed", err)
		}
	}
	if n := count(); n != allowed {
		t.Fatalf("%d streams", n)
	}
	if n := l.Stats().StreamsRefused; n != 1 {
		t.Fatalf("%d stream refusals counted", n)
	}
}
