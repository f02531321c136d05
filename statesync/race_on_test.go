//go:build race

package statesync_test

// raceEnabled: the race detector slows the scale scenario tenfold, so
// under it the scenario runs at its -short size.
const raceEnabled = true
