// Package syncclient is a state-sync client over a tickwire connection,
// and the bot that plays it: the statesync.Client core with the action
// game (statesync/actiongame), driven by sim/action's bot from the world
// it simulated, as a player's client would. It is the engine of
// "tickwire bot --mode statesync" and "tickwire demo --mode statesync",
// and a game developer's starting point for a client of their own.
//
//	dial ─▶ JoinRoom (network model state_sync) ─▶ JoinAccepted
//	     ─▶ per message: statesync/msg Reassembler ─▶ Client.Step
//	     ─▶ bot input for the next frame ─▶ Ready: messages out, events
//	     ─▶ until frame Run.Frames has a hash (Result)
//
// A Plan makes a bot misbehave on purpose: corrupt its own state once
// (the room must detect and repair the desync) or leave and come back
// over a new connection (the room's late-join path). The pure core,
// package statesync, stays socket-free; the socket lives here and in the
// room shell, statesync/host.
package syncclient
