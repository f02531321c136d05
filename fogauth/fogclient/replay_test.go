package fogclient_test

import (
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

// TestFogMatchRecordsAReplay: a fog server with replays on records the
// secret simulation seed, the map seed and every tick's applied orders;
// stepping a fresh game with them reaches the server's final truth
// entity for entity.
func TestFogMatchRecordsAReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const players, units, ticks = 2, 10, 120
		done := make(chan replay.Finished, 1)
		var truth []protocol.EntityState
		fog := fogserver.Config{NewGame: rtsGame, UnitsPerPlayer: units, MatchTicks: ticks, Seed: func() uint64 { return 5 },
			OnTick: func(_ string, core *fogauth.Room) { truth = append(truth[:0], core.Game().Entities()...) },
			Replays: fogserver.Replays{Game: "rts", Config: replay.Config{Dir: t.TempDir(), SignEvery: 32,
				OnFinished: func(f replay.Finished) { done <- f }}}}
		dial := startServer(t, fog, netsim.Link{Latency: 20 * time.Millisecond, Loss: 0.05})
		var wg sync.WaitGroup
		for i := range players {
			wg.Go(func() {
				c, err := fogclient.Join(t.Context(), dial(uint64(i+1)), "rec", players, fogclient.Config{})
				if err != nil {
					t.Error(err)
					return
				}
				fogclient.PlayBot(t.Context(), c, rtsBot(t, c, 9), 0)
			})
		}
		wg.Wait()
		fin := <-done
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
		h := r.Header
		if h.Model != room.FogAuthoritative || h.MapSeed != 5 || h.Seed == 0 || len(h.Players) != players || len(r.Frames) != ticks || r.Footer == nil {
			t.Fatalf("header %+v, %d frames, footer %+v", h, len(r.Frames), r.Footer)
		}
		orders := 0
		game, _, err := rtsGame(players, units, h.MapSeed, h.Seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Frames {
			orders += len(f.Orders)
			if err := game.Step(f.Orders, func(*protocol.TimestampedOrder, uint8) {}); err != nil {
				t.Fatal(err)
			}
		}
		if orders == 0 || !reflect.DeepEqual(game.Entities(), truth) {
			t.Fatalf("%d orders replayed; the re-simulated world differs from the server's (%d vs %d entities)", orders, len(game.Entities()), len(truth))
		}
	})
}
