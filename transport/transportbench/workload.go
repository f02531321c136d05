package transportbench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// Workload is one of the transport issue's peer comparisons.
type Workload struct {
	Name, About string
	// Conns is the number of client connections.
	Conns int
	// Link impairs each direction of every client connection.
	Link netsim.Link
	// Full is the sending time of the full-length run (0: the workload
	// ends by itself).
	Full time.Duration
	// Unreliable says the workload sends on the Unreliable lane.
	Unreliable bool
	// drive sends the traffic on e's clients for d.
	drive func(ctx context.Context, e *env, d time.Duration) error
	// via, when set, carries the clients' packets through a bottleneck
	// shared with other flows instead of Link (see RunShared).
	via *netsim.Bottleneck
	// net, when set, replaces the loopback sockets (RunConfig.Net).
	net *netsim.MemNetwork
}

// rtt50 is the link of the latency-bound workloads: 50 ms round trip,
// ±5 ms (each direction 25 ms ± 2.5 ms).
func rtt50() netsim.Link {
	return netsim.Link{Latency: 25 * time.Millisecond, Jitter: 2500 * time.Microsecond}
}

// Workloads returns W1–W5 in order.
func Workloads() []Workload {
	w1 := rtt50()
	w1.Loss = 0.05
	w2 := rtt50()
	w2.Loss, w2.Duplicate, w2.Reorder = 0.05, 0.01, 0.02
	w3 := rtt50()
	w3.Loss = 0.01
	w4 := netsim.Link{Latency: 25 * time.Millisecond, BandwidthBps: 10_000_000 / 8}
	return []Workload{
		{Name: "W1", About: "64-byte reliable-ordered messages at 1,000/s per connection, 50 ms RTT ± 5 ms, 5% loss, 10 connections",
			Conns: 10, Link: w1, Full: 30 * time.Second, drive: driveStream(Ordered, 64, 1000)},
		{Name: "W2", About: "600-byte unreliable messages at 60 Hz, 50 ms RTT ± 5 ms, 5% loss, 1% duplication, 2% reordering, 10 connections",
			Conns: 10, Link: w2, Full: 30 * time.Second, Unreliable: true, drive: driveStream(Unreliable, 600, 60)},
		{Name: "W3", About: "one 16 MiB reliable message, 50 ms RTT ± 5 ms, 1% loss",
			Conns: 1, Link: w3, drive: driveBulkMessage(16 << 20)},
		{Name: "W4", About: "64-byte Critical messages at 60 Hz alone (phase 0), then while a Bulk transfer saturates a 10 Mbit/s cap (phase 1); 50 ms RTT",
			Conns: 1, Link: w4, Full: 30 * time.Second, drive: driveCriticalUnderBulk},
		{Name: "W5", About: "1,000 idle connections on keepalives, 50 ms RTT",
			Conns: 1000, Link: netsim.Link{Latency: 25 * time.Millisecond}, Full: 30 * time.Second, drive: driveIdle},
	}
}

// CongestionWorkloads returns the workloads of the congestion issues, C1
// to C3: a bulk transfer through random loss, and small urgent (C2) or
// normal (C3, over jitter that reorders) messages through loss, jitter
// and duplication.
func CongestionWorkloads() []Workload {
	c1 := netsim.Link{Latency: 20 * time.Millisecond, Loss: 0.02}
	c2 := netsim.Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.03, Duplicate: 0.01}
	c3 := c2
	c3.JitterReorders = true
	return []Workload{
		{Name: "C1", About: "one 8 MiB reliable message, 20 ms each way, 2% random loss",
			Conns: 1, Link: c1, drive: driveBulkMessage(8 << 20)},
		{Name: "C2", About: "128-byte reliable-ordered Critical messages at 500/s per connection, 40 ± 10 ms each way, 3% loss, 1% duplication, 4 connections",
			Conns: 4, Link: c2, Full: 30 * time.Second, drive: driveStream(Critical, 128, 500)},
		{Name: "C3", About: "128-byte reliable-ordered Normal messages at 500/s per connection, 40 ± 10 ms each way (jitter reorders), 3% loss, 1% duplication, 4 connections",
			Conns: 4, Link: c3, Full: 20 * time.Second, drive: driveStream(Ordered, 128, 500)},
	}
}

// WorkloadByName returns the workload called name ("W1" … "W5", "C1",
// "C2").
func WorkloadByName(name string) (Workload, bool) {
	for _, w := range append(Workloads(), CongestionWorkloads()...) {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
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
