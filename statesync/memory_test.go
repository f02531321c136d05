package statesync_test

import (
	"testing"

	"github.com/tickwire/tickwire/statesync/msg"
)

// TestMemoryBounded: what a room retains (delta history, verified states,
// partitions of the frames being collected) stays flat over a long run,
// and a client flooding the server with partitions cannot grow it: only a
// partition's primary (or the sender asked for it) may submit it, once,
// so a flood of partitions it was not assigned is dropped on arrival.
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
	if got := r.srv.RetainedBytes(); got > steady {
		t.Fatalf("retained %d bytes after the flood, steady state %d (accepted %d partitions)", got, steady, accepted)
	}
	r.frames(20)
	if got := r.srv.RetainedBytes(); got > 2*steady {
		t.Fatalf("retained %d bytes after the flood passed, steady state %d", got, steady)
	}
	st := r.srv.Stats()
	t.Logf("steady %d bytes retained; %d of 10000 flooded partitions accepted, %d dropped as a stranger's",
		steady, accepted, st.StrangerPartitions)
	if accepted != 0 || st.StrangerPartitions == 0 || r.srv.Offences(7) == 0 {
		t.Fatalf("%d flooded partitions accepted, %d strangers, %d offences", accepted, st.StrangerPartitions, r.srv.Offences(7))
	}
}
