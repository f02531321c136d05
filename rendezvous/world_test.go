package rendezvous

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// world is a simulated internet for the virtual-time tests: a rendezvous
// with relays on a public address, a host and a joiner each behind a NAT
// of its own.
type world struct {
	t       *testing.T
	net     *netsim.MemNetwork
	rv      netip.AddrPort
	service *Service
	relays  *RelayPool
	hostNAT *netsim.NAT
	joinNAT *netsim.NAT
	cancel  context.CancelFunc
}

var (
	rvAddr     = netip.MustParseAddrPort("198.51.100.1:3478")
	hostPublic = netip.MustParseAddr("203.0.113.1")
	joinPublic = netip.MustParseAddr("203.0.113.2")
	punchCfg   = PunchConfig{Interval: 50 * time.Millisecond, Timeout: time.Second}
)

// newWorld builds the world; call it inside a synctest bubble.
func newWorld(t *testing.T, host, joiner netsim.NATConfig) *world {
	t.Helper()
	w := &world{t: t, net: netsim.NewMemNetwork(), rv: rvAddr}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.relays = &RelayPool{Ctx: ctx, Listen: func() (net.PacketConn, error) { return w.net.ListenPacket("198.51.100.1:0") }}
	w.service = NewService(ServerConfig{Relays: w.relays})
	pc, err := w.net.ListenPacket(rvAddr.String())
	if err != nil {
		t.Fatal(err)
	}
	go w.service.Serve(ctx, pc)
	w.hostNAT = w.net.AddNAT(hostPublic, host)
	w.joinNAT = w.net.AddNAT(joinPublic, joiner)
	t.Cleanup(cancel)
	return w
}

// endpoint opens a Conn behind nat at the private address addr.
func (w *world) endpoint(nat *netsim.NAT, addr string) *Conn {
	w.t.Helper()
	pc, err := nat.ListenPacket(addr)
	if err != nil {
		w.t.Fatal(err)
	}
	c := NewConn(pc)
	w.t.Cleanup(func() { c.Close() })
	return c
}

// host registers a host behind the host NAT.
func (w *world) host(cfg HostConfig) (*Host, *Conn) {
	w.t.Helper()
	c := w.endpoint(w.hostNAT, "10.0.0.2:5000")
	cfg.Rendezvous, cfg.Punch = w.rv, punchCfg
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := Register(context.Background(), c, cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { h.Close() })
	return h, c
}

// join connects a joiner behind the joiner NAT with code and reports the
// route, how long it took and the joiner's socket.
func (w *world) join(code string) (Route, time.Duration, *Conn, error) {
	c := w.endpoint(w.joinNAT, "10.1.0.2:6000")
	start := time.Now()
	r, err := Connect(context.Background(), c, Rendezvous{Server: w.rv, Code: code}, punchCfg)
	return r, time.Since(start), c, err
}

// exchange sends a game datagram from the joiner along r and the host's
// reply back, and returns where the host saw it come from.
func exchange(t *testing.T, r Route, jc, hc *Conn) net.Addr {
	t.Helper()
	if _, err := jc.WriteTo([]byte("\x02ping"), r.Addr); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	hc.SetReadDeadline(time.Now().Add(time.Second))
	n, from, err := hc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "\x02ping" {
		t.Fatalf("host read %q, %v", buf[:n], err)
	}
	if _, err := hc.WriteTo([]byte("\x02pong"), from); err != nil {
		t.Fatal(err)
	}
	jc.SetReadDeadline(time.Now().Add(time.Second))
	n, back, err := jc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "\x02pong" || back.String() != r.Addr.String() {
		t.Fatalf("joiner read %q from %v, %v; want pong from %v", buf[:n], back, err, r.Addr)
	}
	return from
}
