package lockstep

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

// cacheSim is a simulation whose caches go bad at tick bad.
type cacheSim struct {
	tick, bad uint64
}

var errStale = errors.New("stale cache")

func (s *cacheSim) ApplyTick(t protocol.TickOrders) error { s.tick = t.Tick + 1; return nil }
func (s *cacheSim) StateHash() uint64                     { return s.tick * 31 }
func (s *cacheSim) Snapshot() []byte                      { return []byte{byte(s.tick)} }
func (s *cacheSim) CheckCaches() error {
	if s.tick > s.bad {
		return errStale
	}
	return nil
}

// TestDebugSimLevels: level 1 logs every tick, level 2 stops at the first
// tick whose caches fail naming it, level 3 writes its snapshots; level 0
// writes nothing.
func TestDebugSimLevels(t *testing.T) {
	for level := range uint8(4) {
		dir := t.TempDir()
		ds, err := NewDebugSim(&cacheSim{bad: 5}, DebugConfig{Level: level, Dir: dir, SnapshotEvery: 2, Header: OrderLogHeader{Seed: 3, Players: 1, Player: 1}})
		if err != nil {
			t.Fatal(err)
		}
		var stopped error
		for k := range uint64(8) {
			if stopped = ds.ApplyTick(protocol.TickOrders{Tick: k}); stopped != nil {
				break
			}
		}
		if err := ds.Close(); err != nil {
			t.Fatal(err)
		}
		if got := level >= 2; (stopped != nil) != got || (got && !errors.Is(stopped, errStale)) {
			t.Errorf("level %d: stopped with %v", level, stopped)
		}
		files, _ := os.ReadDir(dir)
		var snaps int
		for _, f := range files {
			if filepath.Ext(f.Name()) == ".snap" {
				snaps++
			}
		}
		wantSnaps := 0
		if level == 3 {
			wantSnaps = 3 // ticks 0, 2, 4; tick 5's caches fail first
		}
		if snaps != wantSnaps || (level == 0) != (len(files) == 0) || (level >= 1) != (ds.OrderLogPath() != "") {
			t.Errorf("level %d: %d files, %d snapshots, order log %q", level, len(files), snaps, ds.OrderLogPath())
		}
	}
}
