// Package hostrelay runs a relay lockstep game inside the host's process,
// for a listen server: Start runs a server room in-process and
// seats the host's own player in it. Remote players join it through a
// transport.Listener with lockstep.JoinRelay; the host's player is a
// lockstep.RelayClient connected to the same server over an in-memory
// transport pipe, so its orders take the same path as everyone's (the
// same room driver, relay.Core and filter chain).
//
// It is a package of its own so that package lockstep, the client, does
// not link the relay server: a game that only joins dedicated relays
// imports lockstep, one that hosts imports hostrelay as well.
package hostrelay
