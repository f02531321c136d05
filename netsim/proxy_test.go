package netsim

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// echoServer echoes every packet on pc and records the sources it saw.
type echoServer struct {
	pc      net.PacketConn
	mu      sync.Mutex
	sources map[string]int
	done    chan struct{}
}

func startEcho(t *testing.T, pc net.PacketConn) *echoServer {
	t.Helper()
	e := &echoServer{pc: pc, sources: make(map[string]int), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		buf := make([]byte, 64<<10)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			e.mu.Lock()
			e.sources[from.String()]++
			e.mu.Unlock()
			pc.WriteTo(buf[:n], from)
		}
	}()
	t.Cleanup(func() {
		pc.Close()
		<-e.done
	})
	return e
}

func (e *echoServer) seen() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int, len(e.sources))
	for k, v := range e.sources {
		out[k] = v
	}
	return out
}

func listenLoopback(t *testing.T) net.PacketConn {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// startProxy serves a proxy on loopback in front of an echo server.
func startProxy(t *testing.T, cfg ProxyConfig) (*Proxy, *echoServer, net.Addr) {
	t.Helper()
	echo := startEcho(t, listenLoopback(t))
	ln := listenLoopback(t)
	cfg.ListenUpstream = func() (net.PacketConn, error) { return net.ListenPacket("udp", "127.0.0.1:0") }
	p := NewProxy(ln, echo.pc.LocalAddr(), cfg)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		ln.Close()
	})
	return p, echo, ln.LocalAddr()
}

// readEchoes reads n packets; the deadline only guards against a hang.
func readEchoes(t *testing.T, c net.PacketConn, n int) []int {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var idx []int
	buf := make([]byte, 2048)
	for range n {
		if _, _, err := c.ReadFrom(buf); err != nil {
			t.Fatalf("after %d of %d echoes: %v", len(idx), n, err)
		}
		idx = append(idx, int(buf[0])<<8|int(buf[1]))
	}
	return idx
}

func TestProxyRelaysBothWays(t *testing.T) {
	p, echo, proxyAddr := startProxy(t, ProxyConfig{})
	clients := []net.PacketConn{listenLoopback(t), listenLoopback(t)}
	for _, c := range clients {
		defer c.Close()
	}
	const n = 100
	for i := range n {
		for _, c := range clients {
			if _, err := c.WriteTo([]byte{byte(i >> 8), byte(i), 'x'}, proxyAddr); err != nil {
				t.Fatal(err)
			}
			if got := readEchoes(t, c, 1); got[0] != i {
				t.Fatalf("echo %d, want %d", got[0], i)
			}
		}
	}
	seen := echo.seen()
	if len(seen) != 2 {
		t.Errorf("server saw sources %v, want 2 distinct ones", seen)
	}
	for src, cnt := range seen {
		if cnt != n || src == proxyAddr.String() {
			t.Errorf("source %s sent %d packets, want %d from a per-client socket", src, cnt, n)
		}
	}
	st := p.Stats()
	if st.Clients != 2 || st.Opened != 2 || st.Up.Delivered != 2*n || st.Down.Delivered != 2*n || st.Up.Dropped()+st.Down.Dropped() != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestProxyLossDropsDeterministically(t *testing.T) {
	const n, seed = 100, 7
	up := Link{Loss: 0.3}
	p, _, proxyAddr := startProxy(t, ProxyConfig{Seed: seed, Up: up})
	c := listenLoopback(t)
	defer c.Close()

	// The first client's Up link is Path(up, seed+0, stream 0).
	model := NewPath(up, seed, 0)
	var want []int
	for i := range n {
		if model.Decide(time.Now(), 3).Drop == Kept {
			want = append(want, i)
		}
	}
	for i := range n {
		c.WriteTo([]byte{byte(i >> 8), byte(i), 'x'}, proxyAddr)
	}
	got := readEchoes(t, c, len(want))
	seen := make(map[int]bool)
	for _, g := range got {
		seen[g] = true
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("packet %d was not echoed; the model keeps it", w)
		}
	}
	if st := p.Stats().Up; st.Lost != uint64(n-len(want)) || st.Packets != n {
		t.Errorf("Up stats %+v, want %d of %d lost", st, n-len(want), n)
	}
	if len(want) < 55 || len(want) > 85 {
		t.Errorf("%d of %d kept at 30%% loss", len(want), n)
	}
}

func TestProxyClientLimitAndExpiry(t *testing.T) {
	p, _, proxyAddr := startProxy(t, ProxyConfig{MaxClients: 1})
	a, b := listenLoopback(t), listenLoopback(t)
	defer a.Close()
	defer b.Close()
	a.WriteTo([]byte{0, 1}, proxyAddr)
	readEchoes(t, a, 1)
	b.WriteTo([]byte{0, 2}, proxyAddr) // over the limit: dropped
	a.WriteTo([]byte{0, 3}, proxyAddr) // read by the proxy after b's
	readEchoes(t, a, 1)
	if st := p.Stats(); st.Rejected != 1 || st.Clients != 1 {
		t.Errorf("stats %+v, want b rejected", st)
	}
	p.expire(time.Now().Add(time.Hour)) // everything is idle by then
	if st := p.Stats(); st.Clients != 0 || st.Up.Delivered != 2 {
		t.Errorf("after expiry: %+v, want no mapping and the counters kept", st)
	}
	b.WriteTo([]byte{0, 4}, proxyAddr) // the slot is free again
	readEchoes(t, b, 1)
	if st := p.Stats(); st.Opened != 2 || st.Clients != 1 {
		t.Errorf("stats %+v, want b mapped", st)
	}
}

// TestProxyLatencyInVirtualTime runs the proxy over a MemNetwork: the
// round trip is exactly the Up plus the Down latency.
func TestProxyLatencyInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNetwork()
		server, _ := n.ListenPacket("")
		echo := startEcho(t, server)
		ln, _ := n.ListenPacket("")
		defer ln.Close()
		p := NewProxy(ln, echo.pc.LocalAddr(), ProxyConfig{
			Up: Link{Latency: 40 * time.Millisecond}, Down: Link{Latency: 10 * time.Millisecond},
			IdleTimeout:    time.Second,
			ListenUpstream: func() (net.PacketConn, error) { return n.ListenPacket("") },
		})
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error)
		go func() { served <- p.Serve(ctx) }()

		c, _ := n.ListenPacket("")
		defer c.Close()
		buf := make([]byte, 16)
		for range 3 {
			start := time.Now()
			c.WriteTo([]byte("ping"), ln.LocalAddr())
			if _, _, err := c.ReadFrom(buf); err != nil {
				t.Fatal(err)
			}
			if rtt := time.Since(start); rtt != 50*time.Millisecond {
				t.Errorf("round trip %v, want 50ms", rtt)
			}
		}
		time.Sleep(2 * time.Second) // idle past the timeout
		if st := p.Stats(); st.Clients != 0 || st.Opened != 1 {
			t.Errorf("stats %+v, want the idle mapping expired", st)
		}
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

func TestProxyServeFailsWhenConnCloses(t *testing.T) {
	ln := listenLoopback(t)
	p := NewProxy(ln, ln.LocalAddr(), ProxyConfig{})
	ln.Close()
	if err := p.Serve(context.Background()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Serve on a closed conn: %v", err)
	}
}
