package statesync_test

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/statesync"
)

func TestReliabilityFixedPoint(t *testing.T) {
	tr := statesync.NewReliabilityTracker()
	tr.Fail(1)
	if got := tr.Score(1); got != statesync.ScoreOne*7/10 {
		t.Fatalf("after a failure %d, want %d", got, statesync.ScoreOne*7/10)
	}
	// An instant answer moves a tenth of the way towards 2.0.
	tr.Succeed(2, 0)
	if got := tr.Score(2); got != (statesync.ScoreOne*9+2*statesync.ScoreOne)/10 {
		t.Fatalf("after an instant success %d", got)
	}
	// An answer at twice the expected latency earns no speed bonus:
	// it moves towards 1.0 and a score of 1.0 stays.
	tr.Succeed(3, 2*statesync.ExpectedLatency)
	if got := tr.Score(3); got != statesync.ScoreOne {
		t.Fatalf("after a slow success %d", got)
	}
	for range 1000 {
		tr.Succeed(4, 0)
	}
	if got := tr.Score(4); got > statesync.ScoreMax || got < statesync.ScoreMax-20 {
		t.Fatalf("score after many fast successes %d, want close to and at most %d", got, statesync.ScoreMax)
	}
	for range 100 {
		tr.Fail(5)
	}
	if tr.Score(5) != 0 {
		t.Fatalf("score after many failures %d", tr.Score(5))
	}
	_ = time.Millisecond
}

func TestReliabilityVersions(t *testing.T) {
	tr := statesync.NewReliabilityTracker()
	if _, ok := tr.Publish(); ok {
		t.Fatal("published with no change")
	}
	tr.Fail(9)
	u, ok := tr.Publish()
	if !ok || u.Version != 2 || len(u.Scores) != 1 || u.Scores[0].Client != 9 {
		t.Fatalf("publish %+v %v", u, ok)
	}
	// The live score moves, the published one the assignment uses stays.
	tr.Fail(9)
	if tr.Published(9) == tr.Score(9) {
		t.Fatal("published score follows the live one before a publish")
	}
	if tr.Version() != 2 {
		t.Fatal("version moved without a publish")
	}
	tr.Remove(9)
	u, _ = tr.Publish()
	if u.Version != 3 || len(u.Scores) != 0 {
		t.Fatalf("after remove %+v", u)
	}
}
