package fogbench

import (
	"runtime"
	"testing"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/protocol"
)

// BenchmarkServerTick is the server's cost per tick besides the
// simulation's own tick, as issue 10 lists it: the clients'
// acknowledgements, fog update for 8 players, deltas against the
// acknowledged state, priority accumulator and budget, serialisation; in
// the 8-player battle. The clients' work and the simulation run with the
// timer stopped, and every RestartEvery ticks the battle starts again
// from the warm-up (untimed), so about 2,000 entities stay alive and
// fighting. Decoding the clients' orders (the native order codec, which
// allocates the orders it returns) is timed apart and reported as
// orders-ns/tick and orders-allocs/tick.
func BenchmarkServerTick(b *testing.B) {
	var g *Game
	visible, entities, bytes := 0, 0, 0
	var orders time.Duration
	var ordersAllocs uint64
	var ms runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if i%RestartEvery == 0 {
			var err error
			if g, err = Battle(fogauth.Config{}); err != nil {
				b.Fatal(err)
			}
		}
		before := g.Bytes[0]
		if err := g.Submit(); err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		mallocs, t0 := ms.Mallocs, time.Now()
		if err := g.StepOrders(); err != nil {
			b.Fatal(err)
		}
		orders += time.Since(t0)
		runtime.ReadMemStats(&ms)
		ordersAllocs += ms.Mallocs - mallocs
		b.StartTimer()
		if err := steps(g); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := g.Room.Simulate(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		publish(g)
		b.StopTimer()
		for p := 1; p <= 8; p++ {
			visible += len(g.Room.Game().Visible(protocol.PlayerID(p)))
		}
		entities += len(g.RTS.Sim().Entities())
		if err := g.Deliver(); err != nil {
			b.Fatal(err)
		}
		bytes += g.Bytes[0] - before
		b.StartTimer()
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "bytes/client/tick")
	b.ReportMetric(float64(visible)/float64(b.N)/8, "visible/client")
	b.ReportMetric(float64(entities)/float64(b.N), "entities")
	b.ReportMetric(float64(orders.Nanoseconds())/float64(b.N), "orders-ns/tick")
	b.ReportMetric(float64(ordersAllocs)/float64(b.N), "orders-allocs/tick")
}

// steps and publish are the timed work of BenchmarkServerTick, apart from
// the warm-up's, so an instruction counter can collect them alone
// (valgrind --tool=callgrind --collect-atstart=no
// --toggle-collect='*fogbench.steps' --toggle-collect='*fogbench.publish').
//
//go:noinline
func steps(g *Game) error { return g.StepAcks() }

//go:noinline
func publish(g *Game) { g.Room.Publish() }
