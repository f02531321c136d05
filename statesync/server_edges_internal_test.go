package statesync

import (
	"testing"

	"github.com/tickwire/tickwire/statesync/msg"
)

// TestFailedCorrectionDistrustsItsSource: a client whose correction did
// not verify asks for a full state; the correction's source is left out
// of sourcing (suspect), and nobody else is.
func TestFailedCorrectionDistrustsItsSource(t *testing.T) {
	for _, corrected := range []bool{false, true} {
		s := NewServer(Config{}, 0)
		for id := uint32(1); id <= 3; id++ {
			if err := s.Join(0, id); err != nil {
				t.Fatal(err)
			}
		}
		s.clients[1].recovering = &recovery{client: 1, corrected: corrected, cp: &checkpoint{provider: 2}}
		if err := s.Step(0, 1, &msg.SyncRequest{What: msg.SyncFullState}); err != nil {
			t.Fatal(err)
		}
		if got := s.suspect(2); got != corrected {
			t.Errorf("corrected=%v: the checkpoint's provider suspect=%v, want %v", corrected, got, corrected)
		}
		if s.suspect(3) {
			t.Errorf("corrected=%v: a client that sourced nothing is suspect", corrected)
		}
	}
}
