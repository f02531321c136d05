package join_test

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/server/join"
)

// TestRefusalNames: every reason has a name, and the names are distinct
// (they label the refused-join metric).
func TestRefusalNames(t *testing.T) {
	seen := map[string]bool{}
	for r := range join.NumRefusalReasons {
		n := r.String()
		if n == "refusal?" || seen[n] {
			t.Errorf("reason %d: name %q", r, n)
		}
		seen[n] = true
	}
	if got := join.NumRefusalReasons.String(); got != "refusal?" {
		t.Errorf("out-of-range reason named %q", got)
	}
}

// TestJoinErrorIs: a refusal matches ErrRefused and its own reason's
// sentinel, and no other reason's.
func TestJoinErrorIs(t *testing.T) {
	for r := range join.NumRefusalReasons {
		var err error = &join.JoinError{Reason: r, Detail: "d"}
		if !errors.Is(err, join.ErrRefused) || !errors.Is(err, r.Err()) {
			t.Errorf("%v: %v does not match ErrRefused and %v", r, err, r.Err())
		}
		for other := range join.NumRefusalReasons {
			if other != r && errors.Is(err, other.Err()) {
				t.Errorf("%v matches %v", r, other)
			}
		}
	}
	if !errors.Is(&join.JoinError{Reason: join.RefuseRoomFull}, join.ErrRoomFull) {
		t.Error("a full room is not ErrRoomFull")
	}
}
