package syncclient

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/transport"
)

// TestStateSyncRecordsAgreedHashes: a state-sync server with replays on
// records the majority hash of every frame judged; the file verifies,
// names the model and ends with the report's last verdict.
func TestStateSyncRecordsAgreedHashes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reports := make(chan host.Report, 1)
		done := make(chan replay.Finished, 1)
		srv := roomtest.StartConfig(t, server.Config{Models: []room.Model{host.Model(host.Config{OnReport: func(r host.Report) { reports <- r },
			Replays: replay.Config{Dir: t.TempDir(), OnFinished: func(f replay.Finished) { done <- f }}})},
			DefaultModel: room.StateSync})
		dial := func(ctx context.Context, _ int) (*transport.Conn, error) { return srv.Dial(ctx, netsim.Config{}) }
		results := Play(t.Context(), Run{Players: 3, RoomSize: 3, Room: "rec", Frames: 120, Dial: dial})
		srv.Close()
		rep, fin := <-reports, <-done
		if fin.Err != nil {
			t.Fatal(fin.Err)
		}
		r, err := replay.ReadFile(fin.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Verify(nil); err != nil {
			t.Fatal(err)
		}
		if r.Header.Model != room.StateSync || len(r.Syncs) == 0 || r.Footer == nil ||
			r.Footer.FinalTick != uint64(rep.LastVerdict) || r.Footer.FinalHash != uint64(rep.LastVerdictHash) {
			t.Fatalf("header %+v, %d syncs, footer %+v, report verdict %d %x", r.Header, len(r.Syncs), r.Footer, rep.LastVerdict, rep.LastVerdictHash)
		}
		for i := 1; i < len(r.Syncs); i++ {
			if r.Syncs[i].Tick <= r.Syncs[i-1].Tick {
				t.Fatalf("verdicts out of order: %v", r.Syncs[i-1:i+1])
			}
		}
		if !results[0].HasHash {
			t.Fatal("the bots ended without a hash")
		}
	})
}
