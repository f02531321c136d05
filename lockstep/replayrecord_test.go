package lockstep_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

// TestRelayRecordsAReplayThatReplays: a relay with replays on records a
// three-player match over lossy links; the file, renamed when the match
// ended, verifies, and re-simulating its frames reaches every hash the
// players agreed on and the players' own final hash.
func TestRelayRecordsAReplayThatReplays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		done := make(chan replay.Finished, 1)
		rn := startRelay(t, server.Config{}, lockstepserver.Config{Replays: lockstepserver.Replays{Game: "rts",
			Config: replay.Config{Dir: dir, SignEvery: 50, OnFinished: func(f replay.Finished) { done <- f }}}})
		defer rn.close()
		const ticks = 300
		res := runMatch(t, rn, 3, netsim.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}, ticks)
		checkInSync(t, res, ticks)
		fin := <-done
		if fin.Err != nil || fin.Incomplete || !strings.HasSuffix(fin.Path, replay.Suffix) {
			t.Fatalf("replay %+v", fin)
		}
		r, err := replay.ReadFile(fin.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Verify(nil); err != nil {
			t.Fatal(err)
		}
		if r.Header.Seed != res[0].seed || len(r.Header.Players) != 3 || r.Footer == nil || r.Footer.Ticks < ticks || len(r.Syncs) == 0 {
			t.Fatalf("header %+v, footer %+v, %d syncs", r.Header, r.Footer, len(r.Syncs))
		}
		m, cfg, err := scenario.Generate(scenario.Params{Players: len(r.Header.Players), Seed: r.Header.Seed})
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.New(m, cfg, r.Header.Seed)
		if err != nil {
			t.Fatal(err)
		}
		pb := lockstep.NewReplayPlayback(r)
		var atEnd uint64
		loop := lockstep.GameLoop{Sim: s, Net: pb, OnTick: func(tick, hash uint64) {
			if tick == ticks-1 {
				atEnd = hash
			}
		}}
		for {
			n, err := loop.Step()
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		if pb.Status() != lockstep.StatusEnded || pb.Checked() != pb.Expected() {
			t.Fatalf("playback %v, %d of %d hashes checked, first desync at %d", pb.Status(), pb.Checked(), pb.Expected(), pb.Diagnostics().DesyncTick)
		}
		if atEnd != res[0].hash {
			t.Fatalf("replayed hash at tick %d %016x, players %016x", ticks-1, atEnd, res[0].hash)
		}
	})
}
