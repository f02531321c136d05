// Package scenario generates matches of the reference simulation: a map
// with terrain, rocks, bases and starting armies for a number of players,
// deterministic from a seed. Demos, bots, tests and benchmarks use it to
// get a plausible game of any size without shipping map files.
package scenario
