// Package rtsgame plugs the reference RTS (package sim) into the
// fog-authoritative mode: Game implements fogauth.Game over a sim.Sim with
// the RTS's radius fog, World shows a fog client's partial world to the
// RTS's bot, and Prober is a cheating client's mind for that game. It is
// the worked example of what a game provides to the mode; fogauth itself
// knows nothing of it.
//
// The package does not import fogauth (fogauth.Game's methods use only
// protocol's types), so fogauth's own tests can run against it.
package rtsgame
