package server

import (
	"testing"
	"time"
)

// TestBucket: a burst, then the rate, never more; idle time refills only
// up to the burst.
func TestBucket(t *testing.T) {
	b := newBucket(100, 10, 0)
	n := 0
	for b.take(0) {
		n++
	}
	if n != 10 {
		t.Fatalf("burst: %d tokens, want 10", n)
	}
	// One second at 1 ms steps: 100 more, within rounding.
	n = 0
	for ms := 1; ms <= 1000; ms++ {
		for b.take(time.Duration(ms) * time.Millisecond) {
			n++
		}
	}
	if n < 99 || n > 100 {
		t.Errorf("one second: %d tokens, want 100", n)
	}
	n = 0
	for b.take(time.Hour) {
		n++
	}
	if n != 10 {
		t.Errorf("after an hour idle: %d tokens, want the burst of 10", n)
	}
	if b.take(time.Hour - time.Second) {
		t.Error("a clock going back granted a token")
	}
}
