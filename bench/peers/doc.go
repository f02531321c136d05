// Peers runs the transport workloads W1–W5 of tickwire's transport issue
// for several transports and prints their figures, so tickwire can be
// compared with kcp-go and quic-go on identical, seeded bad networks.
//
// It is a module of its own so the library never depends on the peers.
// The workloads, the loopback-and-netsim set-up, the measurements and the
// tickwire adapter live in the main module's package transportbench, which
// "tickwire bench transport" runs too; this module adds the kcp-go and
// quic-go adapters and a command line.
//
// Usage:
//
//	go run . -workload W1 -peer quic -json          # full length (30 s)
//	go run . -workload W1 -peer kcp -duration 5s    # shortened
//	go run . -workload W5 -peer tickwire -conns 100
//	go run . -peer tickwire -beside quic -duration 30s  # two flows, one bottleneck
//
// The tests run the same code in virtual time, over netsim's in-memory
// network inside a testing/synctest bubble: TestShareBesideQUIC (tickwire
// beside quic-go through one bottleneck, issue 23's (c)) and
// TestUrgentBesideQUIC (workload C2 for both, issue 23's (e)).
//
// # Peers
//
// A peer adapts one library to four lanes: Ordered, Unreliable, Critical
// and Bulk. kcp-go carries the reliable lanes on its one KCP stream and
// unreliable data as out-of-band packets (FEC on, as kcp-go requires);
// quic-go uses one stream per reliable lane and RFC 9221 datagrams;
// tickwire uses one channel per lane with the lane's reliability and
// priority. The adapters' settings are documented on kcpPeer, quicPeer and
// transportbench.Tickwire.
package main
