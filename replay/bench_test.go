package replay_test

import (
	"io"
	"testing"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/replay"
)

// minuteOfPlay is one minute at 30 ticks per second of the codec's
// seeded RTS order traffic.
func minuteOfPlay(players int) []ordertraffic.Model {
	return []ordertraffic.Model{{Seed: 11, Ticks: 1800, Players: players}}
}

// BenchmarkReplayBytesPerMinute writes one minute of play (30 ticks/s,
// a sync hash every 120 ticks, a signature every 300 frames) and reports
// the file's size.
func BenchmarkReplayBytesPerMinute(b *testing.B) {
	for _, players := range []int{2, 4, 8} {
		frames := ordertraffic.Generate(minuteOfPlay(players)[0])
		b.Run(map[int]string{2: "players=2", 4: "players=4", 8: "players=8"}[players], func(b *testing.B) {
			var size int64
			for b.Loop() {
				var n counter
				e, err := replay.NewEncoder(&n, testHeader(players, 300), testKey(1))
				check(b, err)
				for _, f := range frames {
					check(b, e.Frame(f))
					if f.Tick%120 == 0 {
						check(b, e.Sync(replay.SyncHash{Tick: f.Tick, Hash: f.Tick}))
					}
				}
				check(b, e.Finish(replay.Footer{Ticks: uint64(len(frames))}))
				size = int64(n)
			}
			b.ReportMetric(float64(size), "bytes/min")
		})
	}
}

// BenchmarkRecorderFrame is the replay writer's cost to the room's tick:
// one Recorder.Frame of a 4-player tick (the encoding; the disk is the
// background goroutine's).
func BenchmarkRecorderFrame(b *testing.B) {
	frames := ordertraffic.Generate(minuteOfPlay(4)[0])
	rec, err := replay.NewRecorder(io.Discard, testHeader(4, 300), testKey(1), replay.RecorderConfig{})
	check(b, err)
	i := 0
	for b.Loop() {
		f := frames[i%len(frames)]
		f.Tick = uint64(i + 1)
		rec.Frame(f)
		i++
	}
	b.StopTimer()
	if _, err := rec.Close(replay.Footer{}); err != nil {
		b.Fatal(err)
	}
	if lost, _ := rec.Lost(); lost > 0 {
		b.ReportMetric(float64(lost), "lost")
	}
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }
