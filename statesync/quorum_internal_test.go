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
