package statesync

import (
	"testing"
	"time"
)

// TestAdaptiveRedundancy: more than 10% of the room joining or leaving in
// five seconds raises the candidates per partition from 3 to 5, and they
// fall back once the churn is older than five seconds.
func TestAdaptiveRedundancy(t *testing.T) {
	var c churn
	now := 10 * time.Second
	for range 10 {
		c.add(now)
	}
	if got := c.redundancy(now, 100); got != BaseRedundancy {
		t.Fatalf("10%% churn: redundancy %d, want %d", got, BaseRedundancy)
	}
	c.add(now + time.Second)
	if got := c.redundancy(now+time.Second, 100); got != MaxRedundancy {
		t.Fatalf("11%% churn: redundancy %d, want %d", got, MaxRedundancy)
	}
	if got := c.redundancy(now+6*time.Second+churnBucket, 100); got != BaseRedundancy {
		t.Fatalf("after 5 s: redundancy %d, want %d", got, BaseRedundancy)
	}
}

// TestQuorumPeakFollowsTheRoom: a graceful leave lowers the peak at once;
// an abrupt loss does not, but the peak decays by one every QuorumDecay,
// so a room that lost many abruptly is read-only only until the peak has
// come down to what remains.
func TestQuorumPeakFollowsTheRoom(t *testing.T) {
	s := NewServer(Config{}, 0)
	q := &s.quorum
	q.update(s, 10)
	for range 5 {
		q.left()
	}
	q.update(s, 5)
	if q.peak != 5 || q.readOnly {
		t.Fatalf("after 5 graceful leaves: peak %d, read-only %v", q.peak, q.readOnly)
	}
	// An abrupt loss of 3 of 5.
	for s.now = 0; s.now <= 6*time.Second; s.now += time.Second {
		q.update(s, 2)
	}
	if !q.readOnly {
		t.Fatal("not read-only 6 s after losing 60% at once")
	}
	for ; s.now < 60*time.Second && q.readOnly; s.now += time.Second {
		q.update(s, 2)
	}
	if q.readOnly || q.peak > 3 {
		t.Fatalf("still read-only after %v (peak %d)", s.now, q.peak)
	}
	if s.now < 20*time.Second {
		t.Fatalf("the peak decayed in %v: faster than one per QuorumDecay", s.now)
	}
}
