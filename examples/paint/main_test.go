package main

import "testing"

// TestRun plays 100 bots in one room: every client ends on the same
// state hash.
func TestRun(t *testing.T) {
	s, err := run(t.Context(), 100, 40)
	if err != nil {
		t.Fatal(err)
	}
	if s.hashes != 1 || s.painted == 0 {
		t.Fatalf("summary %v", s)
	}
	t.Log(s)
}
