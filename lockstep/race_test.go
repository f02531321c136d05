//go:build race

package lockstep_test

// raceEnabled: the race detector slows the simulated matches about
// twentyfold, so they run shorter.
const raceEnabled = true
