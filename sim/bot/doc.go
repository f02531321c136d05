// Package bot plays the reference simulation: a Bot reads the public state
// of a sim.Sim and issues plausible RTS orders (attack-moves, focus fire,
// rally points, construction, selling, and the odd invalid order a
// confused client sends), each with a sub-tick time hint. Bots are
// deterministic from their seed, so demos, load tests and benchmarks
// replay exactly.
package bot
