package botpool

import "testing"

// TestPlayKeepsOrder: every bot plays once and its result lands at its
// index, whatever order the goroutines finish in.
func TestPlayKeepsOrder(t *testing.T) {
	got := Play(50, func(i int) int { return i * i })
	for i, v := range got {
		if v != i*i {
			t.Fatalf("bot %d: %d, want %d", i, v, i*i)
		}
	}
	if len(Play(0, func(int) int { return 1 })) != 0 {
		t.Fatal("no bots gave results")
	}
}
