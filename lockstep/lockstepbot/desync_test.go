package lockstepbot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
)

// recordLog plays a two-player match of ticks ticks with bot orders under
// debug level 3 in dir, player 1's simulation corrupted by fault (if
// any), and returns the order log of player 1.
func recordLog(t *testing.T, dir string, ticks uint64, fault *Fault) []byte {
	const seed = 99
	g1, in1, err := newGame(2, 1, seed, fault)
	if err != nil {
		t.Fatal(err)
	}
	_, in2, err := newGame(2, 2, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := lockstep.NewDebugSim(g1, lockstep.DebugConfig{Level: 3, Dir: dir, SnapshotEvery: 20,
		Header: lockstep.OrderLogHeader{Seed: seed, Players: 2, Player: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for k := range ticks {
		var orders []protocol.TimestampedOrder
		for p, in := range []lockstep.OrderSource{in1, in2} {
			for _, o := range in.Orders(k) {
				o.Player = protocol.PlayerID(p + 1)
				orders = append(orders, o)
			}
		}
		if err := ds.ApplyTick(protocol.TickOrders{Tick: k, Orders: orders}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ds.OrderLogPath())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayFindsFirstBadTick: a log recorded by a simulation corrupted
// at tick N replays clean up to N-1 and names N, for several N; a clean
// log replays whole; a log cut short says so. Level 3 left its snapshots.
func TestReplayFindsFirstBadTick(t *testing.T) {
	const ticks = 80
	for _, at := range []uint64{0, 1, 17, 40, 79} {
		log := recordLog(t, t.TempDir(), ticks, &Fault{At: at, Field: "kills"})
		res, err := ReplayOrderLog(bytes.NewReader(log))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Diverged || res.FirstBadTick != at || res.Ticks != int(at) || res.Logged == res.Replayed {
			t.Errorf("fault at %d: %+v", at, res)
		}
	}
	dir := t.TempDir()
	log := recordLog(t, dir, ticks, nil)
	res, err := ReplayOrderLog(bytes.NewReader(log))
	if err != nil || res.Diverged || res.Ticks != ticks || res.Truncated || res.Header.Seed != 99 {
		t.Fatalf("clean log: %+v %v", res, err)
	}
	res, err = ReplayOrderLog(bytes.NewReader(log[:len(log)-5]))
	if err != nil || res.Diverged || res.Ticks != ticks-1 || !res.Truncated {
		t.Fatalf("cut log: %+v %v", res, err)
	}
	for _, k := range []int{0, 20, 40, 60} {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("desync_99_%d.snap", k))); err != nil {
			t.Errorf("level 3 snapshot of tick %d: %v", k, err)
		}
	}
}

// BenchmarkCaptureDesync is what a client pays at every sync tick to be
// able to answer the walk later (a Merkle tree and a snapshot of the
// reference game of four players after 300 ticks of bot play), against
// the tick itself.
func BenchmarkCaptureDesync(b *testing.B) {
	g, in, err := newGame(4, 1, 7, nil)
	if err != nil {
		b.Fatal(err)
	}
	for k := range uint64(300) {
		if err := g.ApplyTick(protocol.TickOrders{Tick: k, Orders: in.Orders(k)}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("capture", func(b *testing.B) {
		var c lockstep.DesyncCapture
		for b.Loop() {
			c = g.CaptureDesync()
		}
		b.ReportMetric(float64(len(c.(*simCapture).snapshot)), "snapshot-bytes")
	})
	b.Run("tick", func(b *testing.B) {
		k := g.Tick()
		for b.Loop() {
			if err := g.ApplyTick(protocol.TickOrders{Tick: k}); err != nil {
				b.Fatal(err)
			}
			g.StateHash()
			k++
		}
	})
}
