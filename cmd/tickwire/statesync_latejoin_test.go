package main

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/transport"
)

// TestStateSyncLateJoinOverNewConnection plays a state-sync room of three
// bots through the real server on an in-memory network in virtual time.
// Bot 2 leaves at frame 60, closing its connection; a new client dials a
// new connection, joins the playing room in the free seat, goes NEW →
// SYNCING → ACTIVE through the core's late-join path (its verified full
// state arrives as ClientSynced) and ends the match with the same hash as
// the others. The server counts the late join.
func TestStateSyncLateJoinOverNewConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reports := make(chan host.Report, 1)
		cfg := server.Config{Models: []room.Model{host.Model(host.Config{OnReport: func(r host.Report) { reports <- r }})},
			DefaultModel: room.StateSync}
		tc, err := cfg.Transport()
		if err != nil {
			t.Fatal(err)
		}
		mn := netsim.NewMemNetwork()
		pc, err := mn.ListenPacket("")
		if err != nil {
			t.Fatal(err)
		}
		ln, err := transport.Listen(t.Context(), pc, tc)
		if err != nil {
			t.Fatal(err)
		}
		srv := server.New(cfg)
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan struct{})
		go func() { srv.Serve(ctx, ln); close(served) }()
		var dials atomic.Int32
		dial := func(ctx context.Context, _ int) (*transport.Conn, error) {
			dials.Add(1)
			pc, err := mn.ListenPacket("")
			if err != nil {
				return nil, err
			}
			return transport.Dial(ctx, pc, ln.Addr(), tc)
		}
		plans := []ssPlan{{}, {churnAt: []uint32{60}}, {}}
		results := playStateSync(t.Context(), 3, 3, "late", 200, plans, dial)
		cancel()
		ln.Close()
		<-served
		srv.Close()
		rep := <-reports

		if dials.Load() != 4 {
			t.Errorf("%d dials, want 4 (three bots and the late joiner)", dials.Load())
		}
		for i, r := range results {
			if !r.HasHash || r.Hash != results[0].Hash {
				t.Fatalf("bot %d: %+v", i, r)
			}
		}
		if len(results[1].LateJoins) != 1 || len(results[0].LateJoins)+len(results[2].LateJoins) != 0 {
			t.Fatalf("late joins seen by the bots: %d %d %d", len(results[0].LateJoins), len(results[1].LateJoins), len(results[2].LateJoins))
		}
		if len(rep.LateJoins) != 1 {
			t.Fatalf("server report: %d late joins", len(rep.LateJoins))
		}
		r := ssSummary(3, 200, results, &rep)
		if !r.AllInSync || r.LateJoins != 1 || r.verdict() != nil {
			t.Fatalf("summary %+v", r)
		}
	})
}

// TestOnlyStateSyncTakesLateJoiners: of the models tickwire relay hosts,
// only state_sync opts in to new players in a playing room; lockstep
// (built into the server) and fog_authoritative keep refusing them.
func TestOnlyStateSyncTakesLateJoiners(t *testing.T) {
	f, err := parseRelayFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range f.serverConfig(nil).Models {
		if m.LateJoin != (m.Name == room.StateSync) {
			t.Errorf("%s: LateJoin %v", m.Name, m.LateJoin)
		}
	}
}
