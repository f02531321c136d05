package loadgen

import (
	"context"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// TestLoadPlaysRealRelay: three games of light players over two shared
// sockets join a real relay over loopback UDP and play: every player is
// seated and playing when the load stops, none failed, the relay ran the
// three games and counted no late order and no desync.
func TestLoadPlaysRealRelay(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	ln, err := transport.ListenUDP(ctx, "127.0.0.1:0", lanes.TransportConfig())
	if err != nil {
		t.Fatal(err)
	}
	ls := lockstepserver.New(lockstepserver.Config{})
	srv := server.New(server.Config{TickRate: 30, Models: []room.Model{ls.Model()}, MaxWaitingPerAddr: -1})
	go srv.Serve(ctx, ln)
	defer func() { srv.Close(); ln.Close() }()

	lctx, stop := context.WithCancel(ctx)
	done := make(chan Report, 1)
	go func() {
		rep, err := Run(lctx, Config{Server: ln.Addr().String(), Room: "load", Games: 3, Sockets: 2})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	// Play until every game has applied ticks for a while.
	for {
		playing := 0
		for _, rs := range srv.Stats().Rooms {
			if rs.Phase == "playing" {
				playing++
			}
		}
		if playing == 3 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d of 3 games playing", playing)
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(2 * time.Second)
	stop()
	rep := <-done
	if rep.Players != 12 || rep.Seated != 12 || rep.Playing != 12 || len(rep.Errors) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Ticks == 0 {
		t.Fatal("no tick applied")
	}
	if st := ls.Stats(); st.Desyncs != 0 {
		t.Fatalf("relay saw %d desyncs", st.Desyncs)
	}
}

// TestLoadEndsWhenServerGoes: a load generator whose relay shut down
// ends by itself once every player stopped, instead of running on until
// interrupted (a benchmark that died left its load generators running,
// holding the machine's benchmark lock), and reports why they stopped.
func TestLoadEndsWhenServerGoes(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	ln, err := transport.ListenUDP(ctx, "127.0.0.1:0", lanes.TransportConfig())
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Config{TickRate: 30, Models: []room.Model{lockstepserver.New(lockstepserver.Config{}).Model()}})
	go srv.Serve(ctx, ln)

	tcfg := lanes.TransportConfig()
	tcfg.IdleTimeout = time.Second
	done := make(chan Report, 1)
	go func() {
		rep, err := Run(ctx, Config{Server: ln.Addr().String(), Room: "gone", Games: 1, Transport: &tcfg})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	for srv.Stats().ActiveGames == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the game never started")
		case <-time.After(50 * time.Millisecond):
		}
	}
	ln.Close()
	srv.Close()
	select {
	case rep := <-done:
		if rep.Players != 4 || rep.Seated != 4 || len(rep.Errors) == 0 {
			t.Fatalf("report %+v", rep)
		}
	case <-ctx.Done():
		t.Fatal("the load generator played on after its relay was gone")
	}
}
