package main

import (
	"context"
	"testing"
	"time"
)

// TestRun plays testPlayers bots (100; 20 under the race detector) in one room: every client ends on the same
// state hash.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s, err := run(ctx, testPlayers, 40)
	if err != nil {
		t.Fatal(err)
	}
	if s.hashes != 1 || s.painted == 0 {
		t.Fatalf("summary %v", s)
	}
	t.Log(s)
}
