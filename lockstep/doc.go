// Package lockstep is the client side of tickwire's deterministic lockstep
// netcode: the NetworkModel interface the game loop talks to, its
// implementations, and the GameLoop helper that drives a simulation with it.
//
// A NetworkModel takes the local player's orders and hands back confirmed
// ticks; the game loop never knows whether the orders went nowhere
// (LocalNetwork, single player), to a relay across the internet
// (RelayClient), or to a relay running in the host's own process
// (package lockstep/hostrelay):
//
//	input ─▶ SubmitOrder ─▶ [network model] ─▶ PollTick ─▶ Simulation.ApplyTick
//	                              ▲                               │
//	                              └──────── ReportSyncHash ◀──────┘
//
// # RelayClient
//
// JoinRelay joins a room with server/join's Join on a transport
// connection (configured with server/lanes.TransportConfig), asking for
// the lockstep network model (a server that would seat it in a room of
// another model refuses: join.ErrModelMismatch), and keeps the seat,
// whose model RelayClient.NetworkModel reports; from then on the
// client runs the match in two goroutines of its own (a reader and a
// driver with one timer) while the NetworkModel methods only touch
// state under a mutex, so PollTick never blocks. The protocol itself is a
// pure state machine with an injected clock (RelayClientConfig.Clock):
// messages and time in, messages to send and the next deadline out:
//
//	loading   CalibrationPing ─▶ CalibrationPong (+ SeedCommit once)
//	          MatchTiming: tick interval, clock offset, submit offset
//	          SeedCommitments ─▶ SeedReveal;  SeedResult: seed, tick 0 start
//	playing   every window k, at start + (k+1)·T − submitOffset (relay
//	          clock = client clock + offset):
//	            OrderSubmit{tick k, orders batched since the last one,
//	                        echo of the newest polled frame's token}
//	          TickFrame ─▶ queue ─▶ PollTick; SyncHash when the frame asks;
//	          its arrival re-estimates the clock offset (upper envelope
//	          of start + (k+1)·T + deadline + RTT/2 − arrival over 500 ms)
//	          TimingFeedback: late → submit up to 5 ms earlier; far too
//	          early (> 20 ms margin) → 1 ms later; within [0, min(deadline,
//	          one window − 1 ms)]; the deadline for the frames that follow
//	          ClientMetrics every second (RTT, queued ticks, tick cost)
//
// Orders are batched, Nagle-style but on the tick cadence: one OrderSubmit
// per tick window, also when empty (it is the heartbeat). Each order's
// SubTickTime is replaced by the time SubmitOrder was called within its
// window, in microseconds on the relay clock: the hint the relay
// normalises. Removals announced by the relay take effect when the tick
// they name is polled, so every client removes a player on the same tick
// (Removed lists them).
//
// The package depends on protocol, never on a concrete simulation: GameLoop
// drives anything that implements Simulation, so the layering rule that the
// simulation and the network share only package protocol holds.
package lockstep
