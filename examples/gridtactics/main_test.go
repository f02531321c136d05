package main

import (
	"context"
	"testing"
	"time"
)

// TestRun plays a short match over loopback UDP: both players end in
// the same state.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a player that cannot join leaves the others waiting
	defer cancel()
	s, err := run(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if s.hosts != s.joins || s.ticks != 60 {
		t.Fatalf("summary %v", s)
	}
	t.Log(s)
}
