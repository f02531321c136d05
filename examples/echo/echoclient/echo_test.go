package echoclient_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/examples/echo/echoclient"
	"github.com/tickwire/tickwire/examples/echo/echoserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// serve runs a tickwire server of cfg on a loopback UDP socket until
// the test ends, and returns its address and the transport
// configuration clients dial with.
func serve(t *testing.T, cfg server.Config) (net.Addr, transport.Config) {
	t.Helper()
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	tc, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := transport.Listen(t.Context(), pc, tc)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
		ln.Close()
	})
	return ln.Addr(), tc
}

// TestBotsOverLoopbackUDP: a real server and four bots over real
// loopback UDP sockets; each says 25 lines, and every bot hears every
// line of every bot exactly once, in its sender's order, its own
// included.
func TestBotsOverLoopbackUDP(t *testing.T) {
	addr, tc := serve(t, server.Config{Models: []room.Model{echoserver.Model(echoserver.Config{})}, DefaultModel: echo.ModelName})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	dial := func(ctx context.Context, _ int) (*transport.Conn, error) {
		return transport.DialUDP(ctx, addr.String(), tc)
	}
	r := echoclient.RunBots(ctx, echoclient.BotRun{Players: 4, RoomSize: 4, Room: "lobby", Messages: 25, Interval: time.Millisecond, Dial: dial})
	if !r.AllEchoed || len(r.Players) != 4 || r.NetworkModel != echo.ModelName {
		t.Fatalf("report %+v", r)
	}
	seen := map[int]bool{}
	for _, p := range r.Players {
		if p.Said != 25 || p.Echoes != 25 || p.Heard != 100 || p.OutOfOrder != 0 || seen[p.ID] {
			t.Errorf("bot %+v", p)
		}
		seen[p.ID] = true
	}
}

// TestJoinRefusedForAnotherModel: a server that does not host the echo
// model (only another) refuses an echo client's join, and Join says so.
func TestJoinRefusedForAnotherModel(t *testing.T) {
	other := room.Model{Name: "other", MaxRoomSize: 2, Channels: lanes.Channels(),
		New: func(room.Params) (room.Room, error) { return nil, errors.New("never started") }}
	addr, tc := serve(t, server.Config{Models: []room.Model{other}, DefaultModel: other.Name})
	conn, err := transport.DialUDP(t.Context(), addr.String(), tc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := echoclient.Join(t.Context(), conn, "r", 2); !errors.Is(err, join.ErrModelUnavailable) {
		t.Fatalf("a server without the echo model answered an echo client's join with %v, want join.ErrModelUnavailable", err)
	}
}
