//go:build unix

package lockstep_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRelayGameTick runs a 4-player game at 100 ticks per second in
// real time over the in-memory network: a relay server and four
// RelayClients, each client submitting one order per tick and polling and
// hashing every tick (no simulation). It reports the process CPU time per
// game tick (relay, clients and transport together) and the wire bytes
// (both directions) per player per tick. One op is one tick.
func BenchmarkRelayGameTick(b *testing.B) {
	const players = 4
	ctx := context.Background()
	mn := netsim.NewMemNetwork()
	pc, err := mn.ListenPacket("")
	if err != nil {
		b.Fatal(err)
	}
	l, err := transport.Listen(ctx, pc, lanes.TransportConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	srv := server.New(server.Config{TickRate: 100, Models: []room.Model{lockstepserver.Model(lockstepserver.Config{Relay: relay.Config{
		Calibration: relay.CalibrationConfig{Interval: 5 * time.Millisecond},
		StartDelay:  10 * time.Millisecond,
	}})}})
	defer srv.Close()
	go srv.Serve(ctx, l)

	clients := make([]*lockstep.RelayClient, players)
	errs := make(chan error, players)
	for i := range clients {
		go func() {
			cpc, err := mn.ListenPacket("")
			if err != nil {
				errs <- err
				return
			}
			conn, err := transport.Dial(ctx, cpc, l.Addr(), lanes.TransportConfig())
			if err != nil {
				errs <- err
				return
			}
			clients[i], err = lockstep.JoinRelay(ctx, conn, "bench", players, lockstep.RelayClientConfig{})
			if err == nil {
				_, err = clients[i].AwaitSeed(ctx)
			}
			errs <- err
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	// Drain whatever arrived before the measurement.
	for _, c := range clients {
		for {
			if _, ok := c.PollTick(); !ok {
				break
			}
		}
	}
	wire := func() (n uint64) {
		for _, c := range clients {
			d := c.Diagnostics()
			n += d.BytesSent + d.BytesReceived
		}
		return n
	}
	before, bytesBefore := cpuTime(), wire()
	b.ResetTimer()
	for _, c := range clients {
		go func() {
			id := c.PlayerID()
			for n := 0; n < b.N; {
				t, ok := c.PollTick()
				if !ok {
					if c.Wait(ctx) != nil || c.Status() >= lockstep.StatusEnded {
						break
					}
					continue
				}
				n++
				c.ReportSyncHash(t.Tick, t.Tick)
				c.SubmitOrder(protocol.TimestampedOrder{Player: id, Order: protocol.Sell{Building: protocol.EntityID(t.Tick)}})
			}
			errs <- c.Err()
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu, bytes := cpuTime()-before, wire()-bytesBefore
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/tick")
	b.ReportMetric(float64(bytes)/float64(b.N*players), "wire-B/player/tick")
	for _, c := range clients {
		c.Close()
	}
}
