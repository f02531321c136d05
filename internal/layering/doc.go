// Package layering holds the test that enforces tickwire's package layering:
// which packages may depend on which. It has no code of its own.
//
// The rules (see ARCHITECTURE.md):
//
//	wire, protocol   standard library only, and no networking
//	sim              protocol, wire, the standard library and an xxHash
//	                 library; never networking code
//	transport        no game package (protocol, sim, lockstep, relay, …)
//	netsim           standard library only, so any layer's tests can use it
//	relay/server/room  the network model seam: no lockstep code (relay,
//	                 relay/msg, relay/server, lockstep)
package layering
