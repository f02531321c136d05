// Peers runs the transport workloads W1–W5 of tickwire's transport issue
// for several transports and prints their figures, so tickwire can be
// compared with kcp-go and quic-go on identical, seeded bad networks.
//
// It is a module of its own so the library never depends on the peers.
//
// Usage:
//
//	go run . -workload W1 -peer quic -json          # full length (30 s)
//	go run . -workload W1 -peer kcp -duration 5s    # shortened
//	go run . -workload W5 -peer tickwire -conns 100
//
// # Set-up
//
// Every client gets its own loopback UDP socket wrapped by netsim with the
// workload's link in both directions (seed + client index); the server's
// socket is wrapped with a perfect link so both ends see the same kind of
// net.PacketConn. Traffic flows client → server.
//
//	client i ─► netsim(Out: link) ─► loopback ─► netsim(perfect) ─► server
//	client i ◄─ netsim(In:  link) ◄─ loopback ◄─ netsim(perfect) ◄─ server
//
// Every message starts with a 16-byte header (lane, phase, connection,
// sequence, send time since the run's epoch) and is padded with random
// bytes, so no transport gains by compressing:
//
//	0      1       2        4          8                 16
//	┌──────┬───────┬────────┬──────────┬─────────────────┬──────────┐
//	│ lane │ phase │ conn   │ seq      │ sent (ns, BE)   │ random…  │
//	└──────┴───────┴────────┴──────────┴─────────────────┴──────────┘
//
// # Peers
//
// A Peer adapts one library to four lanes: Ordered, Unreliable, Critical
// and Bulk. kcp-go carries the reliable lanes on its one KCP stream and
// unreliable data as out-of-band packets (FEC on, as kcp-go requires);
// quic-go uses one stream per reliable lane and RFC 9221 datagrams;
// tickwire uses one channel per lane with the lane's reliability and
// priority. The adapters' settings are documented on kcpPeer, quicPeer
// and tickwireAdapter.
//
// # Figures
//
// Per series of messages: sent, delivered, duplicates delivered (for
// unreliable data), latency p50/p99/p99.9/max from the sender's timestamp
// to the receiver's Receive, and goodput. Per run: packets and bytes on
// the wire, counted where the client sockets' packets enter netsim (so
// lost packets count) in both directions, and per delivered message;
// process CPU time (getrusage) over the sending phase and the drain, per
// delivered message (it includes the load generator and netsim, the same
// for every peer); resident set size now and at peak. W5 reports wire
// bytes and CPU per connection-second instead.
//
// The workloads (see workloads) follow the issue; where it is silent:
// every latency-bound workload runs at 50 ms RTT ± 5 ms (25 ms ± 2.5 ms
// each way), loss applies to each direction, W2 uses 10 connections like
// W1, W4 caps both directions at 10 Mbit/s and measures the Critical
// stream alone for the first third, then under Bulk load, and W5 keeps
// 1,000 connections idle with a 1 s keepalive.
package main
