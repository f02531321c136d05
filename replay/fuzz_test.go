package replay_test

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/replay"
)

// FuzzRead feeds the reader arbitrary files, seeded from the encoder's
// (whole, cut short, with a flipped byte). It must never panic, must
// return what it read before an error, and its errors are the package's
// sentinels.
func FuzzRead(f *testing.F) {
	for _, rec := range []recorded{build(f, 2, 12, 4), build(f, 3, 8, 4), build(f, 2, 3, 1)} {
		f.Add(rec.file)
		f.Add(rec.file[:len(rec.file)/2])
		b := append([]byte(nil), rec.file...)
		b[len(b)/3] ^= 0x55
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := replay.Read(b)
		if err != nil && !errors.Is(err, replay.ErrNotReplay) && !errors.Is(err, replay.ErrVersion) &&
			!errors.Is(err, replay.ErrCorrupt) && !errors.Is(err, replay.ErrTruncated) {
			t.Fatalf("unexpected error %v", err)
		}
		if r == nil {
			return
		}
		if r.Whole > r.Size || r.Size != int64(len(b)) {
			t.Fatalf("whole %d of %d", r.Whole, r.Size)
		}
		_ = r.Verify(nil)
		for i := 1; i < len(r.Frames); i++ {
			if r.Frames[i].Tick <= r.Frames[i-1].Tick {
				t.Fatalf("frames out of order: %d then %d", r.Frames[i-1].Tick, r.Frames[i].Tick)
			}
		}
	})
}
