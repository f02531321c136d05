package replay_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/replay"
)

// TestRecorderRoundTrip: what the background writer records reads back
// whole, signed and complete, and its result's hash is the file's.
func TestRecorderRoundTrip(t *testing.T) {
	var out bytes.Buffer
	rec, err := replay.NewRecorder(&out, testHeader(3, 16), testKey(1), replay.RecorderConfig{})
	check(t, err)
	frames := ordertraffic.Generate(ordertraffic.Model{Seed: 3, Ticks: 100, Players: 3})
	for _, f := range frames {
		rec.Frame(f)
		if f.Tick%30 == 0 {
			rec.Sync(replay.SyncHash{Tick: f.Tick, Hash: f.Tick * 7})
		}
	}
	res, err := rec.Close(replay.Footer{Ticks: 100, FinalHash: 42})
	check(t, err)
	if res.SHA256 != sha256.Sum256(out.Bytes()) || res.Bytes != int64(out.Len()) || res.Incomplete {
		t.Errorf("result %+v for %d bytes", res, out.Len())
	}
	r, err := replay.Read(out.Bytes())
	check(t, err)
	check(t, r.Verify(nil))
	if len(r.Frames) != 100 || len(r.Syncs) != 3 || r.Footer == nil || r.Footer.Incomplete() || r.Footer.FinalHash != 42 {
		t.Fatalf("%d frames, %d syncs, footer %+v", len(r.Frames), len(r.Syncs), r.Footer)
	}
	if _, err := rec.Close(replay.Footer{}); !errors.Is(err, replay.ErrClosed) {
		t.Errorf("second close: %v", err)
	}
}

// stalledDisk is a sink that blocks every write until released: a disk
// that stopped answering.
type stalledDisk struct {
	release chan struct{}
	out     bytes.Buffer
}

func (s *stalledDisk) Write(p []byte) (int, error) {
	<-s.release
	return s.out.Write(p)
}

// TestRecorderNeverBlocksOnStalledDisk: with the disk stalled, every
// Frame returns within MaxWait (virtual time), the frames that found no
// room are counted, written as gaps, and the finished replay says
// incomplete — and still verifies and plays up to its first gap.
func TestRecorderNeverBlocksOnStalledDisk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const queue, ticks, maxWait = 10, 60, 5 * time.Millisecond
		disk := &stalledDisk{release: make(chan struct{})}
		rec, err := replay.NewRecorder(disk, testHeader(2, 8), testKey(1), replay.RecorderConfig{Queue: queue, MaxWait: maxWait})
		check(t, err)
		frames := ordertraffic.Generate(ordertraffic.Model{Seed: 5, Ticks: ticks, Players: 2})
		for _, f := range frames {
			start := time.Now()
			rec.Frame(f)
			if d := time.Since(start); d > maxWait {
				t.Fatalf("frame %d held the tick %v", f.Tick, d)
			}
			time.Sleep(time.Second / 30)
		}
		lost, _ := rec.Lost()
		// The writer holds one record, the queue holds queue more.
		if want := uint64(ticks - queue - 1); lost != want {
			t.Errorf("%d frames lost, want %d", lost, want)
		}
		close(disk.release)
		res, err := rec.Close(replay.Footer{Ticks: ticks})
		check(t, err)
		if !res.Incomplete || res.LostFrames != lost {
			t.Errorf("result %+v", res)
		}
		r, err := replay.Read(disk.out.Bytes())
		check(t, err)
		check(t, r.Verify(nil))
		if r.Footer == nil || !r.Footer.Incomplete() || r.Footer.LostFrames != lost {
			t.Fatalf("footer %+v", r.Footer)
		}
		if got := uint64(len(r.Frames)); got+lost != ticks || r.Ticks() != ticks+1 {
			t.Errorf("%d frames and %d lost of %d ticks (file covers %d)", got, lost, ticks, r.Ticks())
		}
		if len(r.Gaps) != 1 || r.Gaps[0].Tick != queue+2 || r.Gaps[0].Count != lost {
			t.Errorf("gaps %+v", r.Gaps)
		}
	})
}

// TestFileCommitIsAtomic: the replay is under its name only once
// committed; before, its ".part" file reads as unfinished.
func TestFileCommitIsAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.twrp")
	f, err := replay.Create(path)
	check(t, err)
	rec, err := replay.NewRecorder(f, testHeader(1, 4), testKey(1), replay.RecorderConfig{})
	check(t, err)
	for _, fr := range ordertraffic.Generate(ordertraffic.Model{Seed: 1, Ticks: 10, Players: 2}) {
		rec.Frame(fr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the replay has its name before it is finished")
	}
	_, err = rec.Close(replay.Footer{Ticks: 10})
	check(t, err)
	check(t, f.Commit())
	b, err := os.ReadFile(path)
	check(t, err)
	if _, err := replay.Read(b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + replay.PartSuffix); err == nil {
		t.Error("the .part file is still there")
	}
	if _, err := replay.Create(path); err == nil {
		t.Error("Create overwrote a finished replay")
	}
}

var _ io.Writer = (*replay.File)(nil)
