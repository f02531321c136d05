package lockstep_test

import (
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
)

// TestRejoinFiguresAtTick3000 measures a reconnection of a 4-player
// match at tick 3,000 (BENCHMARKS.md): the snapshot's size, the download
// (request to loaded, relay time) and the catch-up (loaded to caught
// up), over links of 30 ± 10 ms each way with 5% loss, in virtual time.
// It runs only with TICKWIRE_FIGURES=1 (about 4,000 ticks of four
// simulations).
func TestRejoinFiguresAtTick3000(t *testing.T) {
	if os.Getenv("TICKWIRE_FIGURES") == "" {
		t.Skip("set TICKWIRE_FIGURES=1 to measure")
	}
	synctest.Test(t, func(t *testing.T) {
		var (
			loaded   relay.SnapshotLoaded
			loadedAt time.Time
			caughtUp time.Duration
			asked    time.Time
		)
		rn := rejoinRelay(t, 0, func(ev relay.Event) {
			switch e := ev.(type) {
			case relay.SnapshotRequested:
				asked = time.Now()
			case relay.SnapshotLoaded:
				loaded, loadedAt = e, time.Now()
			case relay.PlayerRejoined:
				caughtUp = time.Since(loadedAt)
			}
		})
		defer rn.close()
		link := netsim.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
		const at = 3000
		plan := dropPlan{player: 2, at: at, after: 2 * time.Second, times: 1}
		res := runRejoinMatch(t, rn, 4, link, at+300, plan, nil, nil)
		checkRejoined(t, res, at+300, plan)
		t.Logf("dropped after tick %d, back 2 s later: snapshot of tick %d, %d bytes in %d chunk(s); download %v (relay: request to loaded); catch-up %v (relay: loaded to caught up); %v from the rejoin to playing; %v from the drop (client)",
			at, loaded.Tick, loaded.Bytes, loaded.Chunks, loaded.After, caughtUp, loadedAt.Sub(asked)+caughtUp, reconnectOf(res, 2))
	})
}

// reconnectOf is player id's drop-to-playing times.
func reconnectOf(res []rejoinResult, id protocol.PlayerID) []time.Duration {
	for _, r := range res {
		if r.id == id {
			return r.reconnect
		}
	}
	return nil
}
