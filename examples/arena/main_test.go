package main

import (
	"context"
	"testing"
	"time"
)

// TestRun seats three bots in a room of the in-process server: each
// predicts its ticks and the one that reached the hill scored.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a player that cannot join leaves the others waiting
	defer cancel()
	rs, err := run(ctx, 3, 60)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	for i, r := range rs {
		if int(r.player) != i+1 {
			t.Errorf("result %d is player %d", i, r.player)
		}
	}
	t.Log(summary(rs, 60))
}
