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

// TestQuorumEdges: the quorum holds at exactly QuorumPct of the peak; a
// leave never takes the peak below zero; churn counts the last five
// seconds' buckets, the current one included, and 10% exactly is not
// more than 10%; an empty room has the base redundancy.
func TestQuorumEdges(t *testing.T) {
	s := NewServer(Config{}, 0)
	q := &s.quorum
	q.update(s, 10)
	for s.now = 0; s.now <= 10*time.Second; s.now += time.Second {
		q.update(s, 6) // 60% of the peak of 10: the quorum exactly
	}
	if q.readOnly {
		t.Fatal("read-only at exactly QuorumPct of the peak")
	}
	var e quorum
	e.left()
	if e.peak != 0 {
		t.Fatalf("a leave from an empty room: peak %d, want 0", e.peak)
	}
	var c churn
	now := 20 * time.Second
	c.add(now - 5*time.Second + churnBucket) // the oldest bucket still counted
	c.add(now - 5*time.Second)               // just out of the window
	c.add(now)
	if got := c.recent(now); got != 2 {
		t.Fatalf("recent churn %d, want 2 (the current bucket and the oldest kept)", got)
	}
	if got := c.redundancy(now, 20); got != BaseRedundancy {
		t.Fatalf("2 of 20 (10%%): redundancy %d, want the base", got)
	}
	if got := c.redundancy(now, 19); got != MaxRedundancy {
		t.Fatalf("2 of 19: redundancy %d, want the max", got)
	}
	if got := c.redundancy(now, 0); got != BaseRedundancy {
		t.Fatalf("an empty room: redundancy %d, want the base", got)
	}
}
