// Package transportbench defines the transport workloads W1–W5 of
// tickwire's transport issue and runs them, for any transport adapted to
// its [Peer] interface, over loopback UDP sockets impaired by a seeded
// netsim link. "tickwire bench transport" runs them for tickwire itself
// ([Tickwire]); the separate bench/peers module runs them for kcp-go and
// quic-go as well, so every transport meets identical, reproducible bad
// networks and is measured by the same code.
//
// # Set-up
//
// Every client gets its own loopback UDP socket wrapped by netsim with the
// workload's link in both directions (seed + client index); the server's
// socket is wrapped with a perfect link so both ends see the same kind of
// net.PacketConn. Traffic flows client → server. Every socket asks for
// 4 MiB kernel buffers, so that bursts are not dropped by the kernel,
// outside netsim's model.
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
// # Lanes
//
// A [Peer] adapts one library to four lanes: [Ordered], [Unreliable],
// [Critical] and [Bulk]. [Tickwire] uses one channel per lane with the
// lane's reliability and priority.
//
// # Figures
//
// Per series of messages: sent, delivered, duplicates delivered (for
// unreliable data), latency p50/p99/p99.9/max from the sender's timestamp
// to the receiver's Receive, and goodput. Per run: packets and bytes on
// the wire (UDP payload), counted where the client sockets' packets enter
// netsim (so lost packets count) in both directions, and per delivered
// message; process CPU time (getrusage) over the sending phase and the
// drain, per delivered message (it includes the load generator and netsim,
// the same for every peer); resident set size now and at peak. W5 reports
// wire bytes and CPU per connection-second instead.
//
// The workloads follow the issue; where it is silent: every latency-bound
// workload runs at 50 ms RTT ± 5 ms (25 ms ± 2.5 ms each way), loss
// applies to each direction, W2 uses 10 connections like W1, W4 caps both
// directions at 10 Mbit/s and measures the Critical stream alone for the
// first third, then under Bulk load, and W5 keeps 1,000 connections idle
// with a 1 s keepalive.
//
// # Congestion sweep
//
// [RunSweep] runs tickwire's Sessions in virtual time over netsim Paths
// (no sockets: deterministic, a cell in milliseconds) on the congestion
// issue's grid of paths ([SweepPaths]: loss, jitter that reorders, delay,
// bottleneck, bursty delivery) with three workloads, the model-based
// controller beside the fixed window, and [SweepCheck] says which bounds
// a cell misses. "tickwire bench transport --sweep" prints the grid.
package transportbench
