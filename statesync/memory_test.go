package statesync_test

import (
	"testing"

	"github.com/tickwire/tickwire/statesync/msg"
)

// TestMemoryBounded: what a room retains (delta history, verified states,
// partitions of the frames being collected) stays flat over a long run,
// and a client flooding the server with partitions cannot grow it beyond
// the per-frame bound.
func TestMemoryBounded(t *testing.T) {
	r := healthyRoom(t, 13, 30)
	peak := 0
	for i := range 40 {
		r.frames(10)
		if i == 20 {
			peak = 0 // after warm-up
		}
		peak = max(peak, r.srv.RetainedBytes())
	}
	steady := peak
	// A hostile client sends many large partitions for the frame being
	// collected.
	junk := make([]byte, 4096)
	accepted := 0
	for i := range 10000 {
		err := r.srv.Step(r.now, 7, &msg.PartitionData{Frame: r.srv.Frame() - 1, ListVersion: r.srv.ListVersion(),
			Part: uint16(i % 1000), Parts: 1000, Data: junk})
		if err == nil {
			accepted++
		}
	}
	bound := steady + (2*30+16)*len(junk)
	if got := r.srv.RetainedBytes(); got > bound {
		t.Fatalf("retained %d bytes after the flood, bound %d (accepted %d partitions)", got, bound, accepted)
	}
	r.frames(20)
	if got := r.srv.RetainedBytes(); got > 2*steady {
		t.Fatalf("retained %d bytes after the flood passed, steady state %d", got, steady)
	}
	t.Logf("steady %d bytes retained; %d of 10000 flooded partitions accepted", steady, accepted)
	if accepted == 0 || accepted > 2*30+16 {
		t.Fatalf("%d flooded partitions accepted", accepted)
	}
}
