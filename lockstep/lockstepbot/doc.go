// Package lockstepbot plays lockstep matches with bot clients: the engine behind
// "tickwire bot", "tickwire demo" and the load generator of
// "tickwire bench relay".
//
// Run joins Config.Players clients through Config.Join (over a relay, an
// embedded relay or a local network: anything that yields a Client) and
// drives each from its own goroutine:
//
//	Join ─▶ wait for StatusPlaying ─▶ scenario from Client.Seed()
//	     ─▶ lockstep.GameLoop{sim, net, bot} until Config.Ticks applied
//	     ─▶ PlayerReport (hash, orders, lateness, RTT, tick gaps, bytes)
//
// Every bot of a room builds the same map: the scenario is generated from
// the game seed the relay's commit-reveal exchange agreed
// (scenario.Params{Players: RoomSize, Seed: Client.Seed()}), and the
// simulation is seeded with it too, so a room's bots agree without any
// out-of-band setup and no single client chooses the map.
//
// In light mode (Config.Light) a client skips the simulation: it submits
// one plausible Move order per tick and reports a constant hash, the
// cheapest client that still exercises every part of the relay; it
// samples its diagnostics (RTT, progress) once every 30 ticks. The stall
// watchdog costs no timer operation per tick: ticks store their time and
// the timer re-arms itself when it fires.
//
// The summary (Report) is the JSON object of "tickwire bot --json".
package lockstepbot
