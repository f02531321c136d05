package metrics_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tickwire/tickwire/metrics"
)

// TestByKind: an error counts under the first kind it wraps; anything
// else under the catch-all; every kind is in the snapshot.
func TestByKind(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	k := metrics.NewByKind([]metrics.Kind{{Name: "a", Err: errA}, {Name: "b", Err: errB}, {Name: "other"}})
	k.Count(fmt.Errorf("wrapped: %w", errB))
	k.Count(errB)
	k.Count(errors.New("c"))
	got := k.Snapshot()
	want := map[string]uint64{"a": 0, "b": 2, "other": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("snapshot %v, want %v", got, want)
	}
	// Without a catch-all, the last kind takes what matches nothing.
	k = metrics.NewByKind([]metrics.Kind{{Name: "a", Err: errA}, {Name: "b", Err: errB}})
	k.Count(errors.New("c"))
	if got := k.Snapshot(); got["b"] != 1 {
		t.Fatalf("unmatched error counted as %v, want under the last kind", got)
	}
}
