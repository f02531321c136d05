// Package udpfloor measures the physical floor of a UDP datapath on this
// machine: the CPU time the kernel and the Go runtime take to move one
// datagram of a given size over loopback with batched system calls
// (sendmmsg on one side, recvmmsg on the other, 64 datagrams per call),
// and nothing else: no parsing, no session, no allocation per datagram.
//
// Each side runs on its own locked OS thread and reads that thread's CPU
// time (getrusage RUSAGE_THREAD), so the figures are CPU per datagram per
// side, not wall time, and another process's load on the machine does not
// enter them. A server's CPU per datagram divided by the floor for its
// mix of datagrams in and out (Floor.Mix) is how far its datapath is from
// what the machine can do.
//
// On loopback the sending call also delivers the datagram into the
// receiving socket (the kernel runs the receive path in the sender's
// context), so the send side is the larger of the two.
package udpfloor
