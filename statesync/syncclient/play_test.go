package syncclient

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/internal/roomtest"
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
		srv := roomtest.StartConfig(t, server.Config{Models: []room.Model{host.Model(host.Config{OnReport: func(r host.Report) { reports <- r }})},
			DefaultModel: room.StateSync})
		var dials atomic.Int32
		dial := func(ctx context.Context, _ int) (*transport.Conn, error) {
			dials.Add(1)
			return srv.Dial(ctx, netsim.Config{})
		}
		plans := []Plan{{}, {ChurnAt: []uint32{60}}, {}}
		results := Play(t.Context(), Run{Players: 3, RoomSize: 3, Room: "late", Frames: 200, Plans: plans, Dial: dial})
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
		if rep.Stats.Desyncs != 0 {
			t.Fatalf("server report: %d desyncs", rep.Stats.Desyncs)
		}
	})
}

func TestPlans(t *testing.T) {
	plans := Plans(100, 1200, 3, 0.1, 1)
	corrupt, churns := 0, 0
	for _, p := range plans {
		if p.CorruptAt != 0 {
			corrupt++
			if p.CorruptAt < 200 || p.CorruptAt+300 > 1200 || len(p.ChurnAt) > 0 {
				t.Fatalf("corruption plan %+v", p)
			}
		}
		for _, at := range p.ChurnAt {
			if at+300 > 1200+50 {
				t.Fatalf("churn at %d, too late", at)
			}
		}
		churns += len(p.ChurnAt)
	}
	if corrupt != 3 || churns != 10*8 {
		t.Fatalf("%d corrupted, %d churns", corrupt, churns)
	}
}
