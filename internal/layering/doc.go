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
//	server/room  the network model seam: no lockstep code (relay,
//	                 lockstep/msg, server, lockstep)
//	relay            (the core alone) protocol, wire, lockstep/msg; no networking
//	cmd/tickwire     no test code (testing, testing/...)
//
// A rule naming a package that does not exist fails: a moved package
// would otherwise leave its rule checking nothing.
package layering
