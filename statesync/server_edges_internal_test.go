package statesync

import (
	"testing"
	"time"

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

// TestSilentProviderCharged: a recovery provider that never sends the
// leaves it was asked for, once the checkpoint's frame is decided and the
// recovery's deadline passed, is charged like a silent late-join source
// (its score falls, Stats.SilentProviders counts it) and the recovery
// falls back to a full state; a provider that did answer, or one whose
// frame is not decided yet, is not.
func TestSilentProviderCharged(t *testing.T) {
	for _, tc := range []struct {
		name            string
		decided, leaves bool
		requested       []uint32
		charged         bool
	}{
		{"silent", true, false, nil, true},
		{"owes entities", true, true, []uint32{3}, true},
		{"answered", true, true, nil, false},
		{"undecided", false, false, nil, false},
	} {
		s := NewServer(Config{}, 0)
		for id := uint32(1); id <= 3; id++ {
			if err := s.Join(0, id); err != nil {
				t.Fatal(err)
			}
		}
		before := s.rel.Score(2)
		deadline := time.Second
		cp := &checkpoint{provider: 2, decided: tc.decided, haveLeaf: tc.leaves, requested: tc.requested}
		r := &recovery{cp: cp, client: 1, deadline: deadline}
		cp.members = []*recovery{r}
		s.clients[1].recovering = r
		s.recoveries = []*checkpoint{cp}
		s.now = deadline
		s.expireRecoveries()
		if s.stats.SilentProviders != 0 {
			t.Fatalf("%s: charged at the deadline itself", tc.name)
		}
		s.now = deadline + 1
		s.expireRecoveries()
		charged := s.rel.Score(2) < before
		if charged != tc.charged || (s.stats.SilentProviders == 1) != tc.charged {
			t.Errorf("%s: provider charged=%v (score %d→%d, SilentProviders %d), want %v",
				tc.name, charged, before, s.rel.Score(2), s.stats.SilentProviders, tc.charged)
		}
		if s.clients[1].state != StateSyncing {
			t.Errorf("%s: the recovering client is %v after its deadline, want SYNCING (full-state fallback)", tc.name, s.clients[1].state)
		}
	}
}
