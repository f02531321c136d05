package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// TestServeReaders: a relay listening as "serve --readers 4" does (four
// SO_REUSEPORT sockets on one port) seats sixteen players, each from a
// socket of its own, in four rooms; the kernel spreads them over the
// relay's sockets (all sixteen on one socket is a chance of one in a
// billion), and every player plays every tick in sync, whichever
// socket its room's other players arrived on.
func TestServeReaders(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SO_REUSEPORT readers are Linux's")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cfg := server.Config{Models: []room.Model{lockstepserver.Model(lockstepserver.Config{})}}
	tcfg, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := listenRelay(ctx, "127.0.0.1:0", 4, tcfg)
	if err != nil {
		t.Fatal(err)
	}
	d := serveLocalRelay(ctx, ln, cfg)
	defer d.stop()
	addr := d.addr.String()

	var mu sync.Mutex
	spread := 0 // the most sockets seen holding connections at once
	const players, ticks = 16, 90
	rep, err := lockstepbot.Run(ctx, lockstepbot.Config{Players: players, RoomSize: 4, Ticks: ticks, Light: true,
		Join: func(ctx context.Context, i int) (lockstepbot.Client, error) {
			conn, err := transport.DialUDP(ctx, addr, lanes.TransportConfig())
			if err != nil {
				return nil, err
			}
			return joinRoom(ctx, conn, fmt.Sprintf("r%d", i/4), 4)
		},
		OnTick: func(i int, tick uint64, _ time.Time) {
			if i != 0 || tick%10 != 0 {
				return
			}
			n := 0
			for _, c := range ln.ConnectionsPerSocket() {
				if c > 0 {
					n++
				}
			}
			mu.Lock()
			spread = max(spread, n)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Players) != players || !rep.AllInSync {
		for _, p := range rep.Players {
			t.Logf("player %d: %d ticks, error %q", p.ID, p.Ticks, p.Error)
		}
		t.Fatalf("%d players, in sync %v", len(rep.Players), rep.AllInSync)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := len(ln.ConnectionsPerSocket()); got != 4 || spread < 2 {
		t.Fatalf("%d sockets, at most %d holding connections at once", got, spread)
	}
}
