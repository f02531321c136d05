package main

import (
	"testing"
)

// TestRun plays a short match over loopback UDP: both players end in
// the same state.
func TestRun(t *testing.T) {
	s, err := run(t.Context(), 60)
	if err != nil {
		t.Fatal(err)
	}
	if s.hosts != s.joins || s.ticks != 60 {
		t.Fatalf("summary %v", s)
	}
	t.Log(s)
}
