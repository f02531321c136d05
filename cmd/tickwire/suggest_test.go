package main

import "testing"

// TestClosest: the suggestion of "did you mean" is the nearest known
// name, and nothing when no name is near.
func TestClosest(t *testing.T) {
	flags := []string{"players", "player-id", "room", "room-size", "ticks", "server", "server-key", "json", "tps"}
	for word, want := range map[string]string{
		"player":     "players",
		"plyers":     "players",
		"rooom":      "room",
		"roomsize":   "room-size",
		"tick":       "ticks",
		"sever":      "server",
		"serverkey":  "server-key",
		"jsno":       "json",
		"tsp":        "tps",
		"verbose":    "",
		"x":          "",
		"server-key": "server-key",
	} {
		if got := closest(word, flags); got != want {
			t.Errorf("closest(%q) = %q, want %q", word, got, want)
		}
	}
}

// TestEditDistanceAgainstBruteForce checks the dynamic programme against
// the recursive definition of the optimal string alignment distance on
// every pair of words of up to 4 letters over {a, b}.
func TestEditDistanceAgainstBruteForce(t *testing.T) {
	var naive func(a, b string) int
	naive = func(a, b string) int {
		switch {
		case a == "":
			return len(b)
		case b == "":
			return len(a)
		}
		cost := 1
		if a[0] == b[0] {
			cost = 0
		}
		d := min(1+naive(a[1:], b), 1+naive(a, b[1:]), cost+naive(a[1:], b[1:]))
		if len(a) > 1 && len(b) > 1 && a[0] == b[1] && a[1] == b[0] {
			d = min(d, 1+naive(a[2:], b[2:]))
		}
		return d
	}
	var words []string
	for n := 0; n <= 4; n++ {
		for m := 0; m < 1<<n; m++ {
			w := make([]byte, n)
			for i := range w {
				w[i] = "ab"[m>>i&1]
			}
			words = append(words, string(w))
		}
	}
	for _, a := range words {
		for _, b := range words {
			if got, want := editDistance(a, b), naive(a, b); got != want {
				t.Fatalf("editDistance(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
