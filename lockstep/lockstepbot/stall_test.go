package lockstepbot

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestStallWatch: ticks keep the watch quiet however long they go on; a
// stall is reported exactly the limit after the last tick, and once.
func TestStallWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var stalls []time.Duration
		w := newStallWatch(time.Second, func() { stalls = append(stalls, time.Since(start)) })
		defer w.stop()
		for range 30 {
			time.Sleep(300 * time.Millisecond)
			w.tick(time.Now())
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if want := []time.Duration{10 * time.Second}; len(stalls) != 1 || stalls[0] != want[0] {
			t.Fatalf("stalls at %v, want %v", stalls, want)
		}
	})
}
