// Package securebench measures what transport security costs: secure
// handshakes per second through the UDP driver on loopback, the AES-256-GCM
// cost of sealing and opening a 1,200-byte datagram, and the CPU cost of
// encryption on workload W1 (64-byte reliable-ordered messages at 1,000/s
// per connection, 10 connections), run twice on loopback UDP, with and
// without Config.Security, and compared per delivered message.
//
// "tickwire bench transport --json" reports [Measure]'s result under
// "security"; the package's benchmarks give the same figures through
// go test -bench.
//
// The W1 runs here are unimpaired loopback runs: loss and delay would only
// add retransmissions, the same in both runs, to what encryption costs.
// CPU time is the whole process's (user + system), so it includes the
// load generator and both ends of every connection.
package securebench
