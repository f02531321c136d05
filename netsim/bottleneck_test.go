package netsim

import (
	"testing"
	"time"
)

// TestBottleneckShared: packets of different senders crossing one
// Bottleneck wait behind each other in its one bandwidth queue, and are
// tail-dropped together once it is full.
func TestBottleneckShared(t *testing.T) {
	b := NewBottleneck(Link{BandwidthBps: 1000, QueueLimit: 250}, 1)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a := b.Decide(t0, 100) // sender A
	c := b.Decide(t0, 100) // sender B, behind A
	d := b.Decide(t0, 100) // over the 250-byte queue
	if a.At != t0.Add(100*time.Millisecond) || c.At != t0.Add(200*time.Millisecond) || d.Drop != DropQueue {
		t.Fatalf("arrivals %v, %v, third %v", a.At.Sub(t0), c.At.Sub(t0), d.Drop)
	}
	if st := b.Stats(); st.Packets != 3 || st.QueueDropped != 1 {
		t.Fatalf("stats %+v", st)
	}
}
