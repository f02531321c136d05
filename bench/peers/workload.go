package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// workload is one of the transport issue's peer comparisons.
type workload struct {
	name, about string
	conns       int
	// link impairs each direction of every client connection.
	link netsim.Link
	// full is the sending time of the full-length run (0: the workload
	// ends by itself).
	full       time.Duration
	unreliable bool
	// drive sends the traffic on e's clients for d.
	drive func(ctx context.Context, e *env, d time.Duration) error
}

// rtt50 is the link of the latency-bound workloads: 50 ms round trip,
// ±5 ms (each direction 25 ms ± 2.5 ms).
func rtt50() netsim.Link {
	return netsim.Link{Latency: 25 * time.Millisecond, Jitter: 2500 * time.Microsecond}
}

func workloads() map[string]workload {
	w1 := rtt50()
	w1.Loss = 0.05
	w2 := rtt50()
	w2.Loss, w2.Duplicate, w2.Reorder = 0.05, 0.01, 0.02
	w3 := rtt50()
	w3.Loss = 0.01
	w4 := netsim.Link{Latency: 25 * time.Millisecond, BandwidthBps: 10_000_000 / 8}
	return map[string]workload{
		"W1": {name: "W1", about: "64-byte reliable-ordered messages at 1,000/s per connection, 50 ms RTT ± 5 ms, 5% loss, 10 connections",
			conns: 10, link: w1, full: 30 * time.Second, drive: driveStream(Ordered, 64, 1000)},
		"W2": {name: "W2", about: "600-byte unreliable messages at 60 Hz, 50 ms RTT ± 5 ms, 5% loss, 1% duplication, 2% reordering, 10 connections",
			conns: 10, link: w2, full: 30 * time.Second, unreliable: true, drive: driveStream(Unreliable, 600, 60)},
		"W3": {name: "W3", about: "one 16 MiB reliable message, 50 ms RTT ± 5 ms, 1% loss",
			conns: 1, link: w3, drive: driveBulkMessage(16 << 20)},
		"W4": {name: "W4", about: "64-byte Critical messages at 60 Hz alone (phase 0), then while a Bulk transfer saturates a 10 Mbit/s cap (phase 1); 50 ms RTT",
			conns: 1, link: w4, full: 30 * time.Second, drive: driveCriticalUnderBulk},
		"W5": {name: "W5", about: "1,000 idle connections on keepalives, 50 ms RTT",
			conns: 1000, link: netsim.Link{Latency: 25 * time.Millisecond}, full: 30 * time.Second, drive: driveIdle},
	}
}

// env is a running workload: the client connections and what the server
// side received.
type env struct {
	epoch   time.Time
	clients []Conn
	links   []*netsim.PacketConn // the clients' sockets
	rec     *recorder
	// accepted counts the connections the server accepted.
	accepted func() int

	mu        sync.Mutex
	sent      map[series]int
	firstSent map[series]time.Duration // since the epoch
}

// send sends a size-byte message of series s from client i.
func (e *env) send(i int, s series, seq uint32, size int) error {
	msg := make([]byte, max(size, headerSize))
	fillRandom(msg[headerSize:]) // incompressible, so no peer gains by compressing
	now := time.Since(e.epoch)
	header{series: s, conn: uint16(i), seq: seq, sent: now}.put(msg)
	e.mu.Lock()
	if _, ok := e.firstSent[s]; !ok {
		e.firstSent[s] = now // before Send, which may block for long
	}
	e.mu.Unlock()
	if err := e.clients[i].Send(s.lane, msg); err != nil {
		return err
	}
	e.mu.Lock()
	e.sent[s]++
	e.mu.Unlock()
	return nil
}

// fillRandom fills b with pseudo-random bytes.
func fillRandom(b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, rand.Uint64())
		b = b[8:]
	}
	for i := range b {
		b[i] = byte(rand.Uint32())
	}
}

// paced calls f(i) for i = 0, 1, ... at rate per second for d.
func paced(ctx context.Context, rate float64, d time.Duration, f func(i int) error) error {
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for i := 0; time.Duration(i)*interval < d; i++ {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		if err := f(i); err != nil {
			return err
		}
	}
	return nil
}

// driveStream makes every client send size-byte messages on lane at rate
// per second.
func driveStream(lane Lane, size int, rate float64) func(context.Context, *env, time.Duration) error {
	return func(ctx context.Context, e *env, d time.Duration) error {
		errs := make(chan error, len(e.clients))
		for i := range e.clients {
			go func() {
				errs <- paced(ctx, rate, d, func(seq int) error {
					return e.send(i, series{lane: lane}, uint32(seq), size)
				})
			}()
		}
		var err error
		for range e.clients {
			err = errors.Join(err, <-errs)
		}
		return err
	}
}

// driveBulkMessage sends one message of size bytes and waits for it.
func driveBulkMessage(size int) func(context.Context, *env, time.Duration) error {
	return func(ctx context.Context, e *env, _ time.Duration) error {
		if err := e.send(0, series{lane: Ordered}, 0, size); err != nil {
			return err
		}
		return waitFor(ctx, 5*time.Minute, func() bool { return e.rec.count(series{lane: Ordered}) == 1 })
	}
}

// driveCriticalUnderBulk sends 64-byte Critical messages at 60 Hz for d/3
// (phase 0), then for 2d/3 while 16 KiB Bulk messages are sent as fast as
// the peer accepts them (phase 1).
func driveCriticalUnderBulk(ctx context.Context, e *env, d time.Duration) error {
	critical := func(phase uint8, d time.Duration) error {
		return paced(ctx, 60, d, func(seq int) error {
			return e.send(0, series{lane: Critical, phase: phase}, uint32(seq), 64)
		})
	}
	if err := critical(0, d/3); err != nil {
		return err
	}
	loaded := 2 * d / 3
	bulkCtx, stopBulk := context.WithTimeout(ctx, loaded)
	defer stopBulk()
	go func() {
		for seq := uint32(0); bulkCtx.Err() == nil; seq++ {
			if err := e.send(0, series{lane: Bulk, phase: 1}, seq, 16<<10); err != nil {
				return
			}
		}
	}()
	return critical(1, loaded)
}

// driveIdle leaves the connections idle for d: only keepalives flow.
func driveIdle(ctx context.Context, _ *env, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// waitFor polls cond until it holds, ctx ends or limit passes.
func waitFor(ctx context.Context, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %v", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// start listens, dials w.conns clients through netsim-wrapped loopback
// sockets and waits until the server accepted them all. The server's
// socket is wrapped with a perfect link, so both sides of every peer see
// the same kind of net.PacketConn.
func start(ctx context.Context, p Peer, w workload, o Options, seed uint64) (*env, func(), error) {
	raw, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	server := netsim.Wrap(raw, netsim.Config{})
	ln, err := p.Listen(ctx, server, o)
	if err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	epoch := time.Now()
	e := &env{epoch: epoch, rec: newRecorder(epoch), sent: make(map[series]int), firstSent: make(map[series]time.Duration),
		clients: make([]Conn, w.conns), links: make([]*netsim.PacketConn, w.conns)}

	var mu sync.Mutex
	var accepted []Conn
	acceptErr := make(chan error, 1)
	go func() {
		for range w.conns {
			c, err := ln.Accept(ctx)
			if err != nil {
				acceptErr <- err
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
			go func() {
				for {
					msg, err := c.Receive(ctx)
					if err != nil {
						return
					}
					e.rec.record(msg)
				}
			}()
		}
		acceptErr <- nil
	}()
	cleanup := func() {
		for _, c := range e.clients {
			if c != nil {
				c.Close()
			}
		}
		mu.Lock()
		for _, c := range accepted {
			c.Close()
		}
		mu.Unlock()
		ln.Close()
	}

	// Dial in parallel (W5 has 1,000 connections, each a round trip or two).
	sem := make(chan struct{}, 16)
	dialErrs := make(chan error, w.conns)
	for i := range w.conns {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			raw, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				dialErrs <- err
				return
			}
			e.links[i] = netsim.Wrap(raw, netsim.Config{Seed: seed + uint64(i), Out: w.link, In: w.link})
			c, err := p.Dial(ctx, e.links[i], server.LocalAddr(), o)
			e.clients[i] = c
			dialErrs <- err
		}()
	}
	for range w.conns {
		if err = errors.Join(err, <-dialErrs); err != nil {
			break
		}
	}
	if err == nil {
		// A handshake can stall under loss; carry on with what was
		// accepted rather than fail a long run (Result.ConnsAccepted).
		select {
		case err = <-acceptErr:
		case <-time.After(60 * time.Second):
		}
	}
	if err != nil {
		for range cap(sem) {
			sem <- struct{}{} // wait for the dialers before cleaning up
		}
		cleanup()
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	e.accepted = func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(accepted)
	}
	return e, cleanup, nil
}

// wire sums the packets and bytes every client socket sent and received
// (counted where they enter the impairment, so lost packets count too).
func (e *env) wire() (packets, bytes uint64) {
	for _, l := range e.links {
		st := l.Stats()
		packets += st.Out.Packets + st.In.Packets
		bytes += st.Out.Bytes + st.In.Bytes
	}
	return packets, bytes
}
