// Package loadgen is a light load generator for the lockstep relay: it
// plays thousands of light players (lockstep.LightPlayer: the relay
// client's protocol, one Move order per tick, a constant state hash, no
// simulation) over a few shared UDP sockets (transport.Swarm), one
// goroutine per socket and none per player. Reads and writes go in
// batches; every session's timers and every player's deadline are run by
// the socket's loop, which looks at them once a millisecond (one
// coalesced timer). Its CPU is meant to be much less than the server's,
// so that a benchmark measures the server; "tickwire bench relay" runs
// it in a process of its own and reports its CPU apart.
//
// The sessions are plaintext: a load generator that completes thousands
// of encrypted handshakes measures the handshake, which "tickwire bench
// transport" does already.
package loadgen
