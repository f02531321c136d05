package main

import (
	"testing"
	"time"
)

// waitForAtMost bounds a waitFor: far beyond what any state the tests
// wait for takes on a loaded machine (seconds), so that a state that
// never comes fails the test in minutes, not at the binary's -timeout.
const waitForAtMost = 2 * time.Minute

// waitFor polls cond until it holds, for a state the test cannot be told
// about (a server ready, a match started, a file written). It gives up
// after waitForAtMost, or when the test binary's own -timeout is near, so
// a loaded machine makes the test slower, never wrong; a verdict is the
// caller's, after the wait. what names the state in the failure.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitForAtMost)
	if d, ok := t.Deadline(); ok && d.Add(-10*time.Second).Before(deadline) {
		deadline = d.Add(-10 * time.Second) // room to report
	}
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s never happened", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
