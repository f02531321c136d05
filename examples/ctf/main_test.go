package main

import (
	"context"
	"testing"
	"time"
)

// TestRun plays a short match through the in-process server: both
// clients end with the world the server says they should see.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a player that cannot join leaves the other waiting
	defer cancel()
	s, err := run(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if !s.consistent[1] || !s.consistent[2] || s.seen[1] < runners+1 || s.seen[2] < runners+1 {
		t.Fatalf("summary %v", s)
	}
	t.Log(s)
}
