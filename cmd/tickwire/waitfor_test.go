package main

import (
	"testing"
	"time"
)

// waitFor polls cond until it holds, for a state the test cannot be told
// about (a server ready, a match started, a file written). It gives up
// only when the test binary's own -timeout is near, so a loaded machine
// makes the test slower, never wrong; a verdict is the caller's, after
// the wait. what names the state in the failure.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline, ok := t.Deadline()
	if ok {
		deadline = deadline.Add(-10 * time.Second) // room to report
	} else {
		deadline = time.Now().Add(5 * time.Minute)
	}
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited until the test's deadline: %s never happened", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
