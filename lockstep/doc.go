// Package lockstep is the client side of tickwire's deterministic lockstep
// netcode: the NetworkModel interface the game loop talks to, its
// implementations, and the GameLoop helper that drives a simulation with it.
//
// A NetworkModel takes the local player's orders and hands back confirmed
// ticks; the game loop never knows whether the orders went nowhere
// (LocalNetwork, single player), to a relay across the internet, or to a
// relay running in the host's own process:
//
//	input ─▶ SubmitOrder ─▶ [network model] ─▶ PollTick ─▶ Simulation.ApplyTick
//	                              ▲                               │
//	                              └──────── ReportSyncHash ◀──────┘
//
// The package depends on protocol, never on a concrete simulation: GameLoop
// drives anything that implements Simulation, so the layering rule that the
// simulation and the network share only package protocol holds.
package lockstep
