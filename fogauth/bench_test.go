package fogauth

import (
	"encoding/binary"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// battleRoom is the benchmark workload: the simulation benchmarks' battle
// (8 players, about 2,000 units engaged after the warm-up) in a Room with
// one client per player that acknowledges everything it is sent.
type battleRoom struct {
	r     *Room
	team  bot.Team
	order []protocol.TimestampedOrder
	acks  [][]byte
	parts []PartID
}

func newBattleRoom(tb testing.TB, cfg Config) *battleRoom {
	p := scenario.BenchmarkParams()
	md, rules, err := scenario.Generate(p)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := New(cfg, md, rules, p.Seed, 0)
	if err != nil {
		tb.Fatal(err)
	}
	b := &battleRoom{r: r, team: bot.NewTeam(md.Players, p.Seed), acks: make([][]byte, md.Players+1)}
	for pl := 1; pl <= md.Players; pl++ {
		if err := r.AddClient(ClientID(pl), protocol.PlayerID(pl)); err != nil {
			tb.Fatal(err)
		}
	}
	for range scenario.BattleWarmup {
		b.simulate(tb)
		b.r.Publish()
		b.acknowledge(tb)
	}
	return b
}

// simulate runs the simulation's tick with the bots' orders (not timed:
// the figure is the server's cost besides the simulation).
func (b *battleRoom) simulate(tb testing.TB) {
	b.order = b.team.Orders(b.r.sim, b.order[:0])
	if err := b.r.sim.ApplyTick(protocol.TickOrders{Tick: b.r.sim.Tick(), Orders: b.order}); err != nil {
		tb.Fatal(err)
	}
	b.r.tick++
}

// acknowledge builds each client's Ack of what it was sent (client work),
// then clears the room's Ready.
func (b *battleRoom) acknowledge(tb testing.TB) {
	for id := range b.acks {
		b.acks[id] = b.acks[id][:0]
	}
	b.parts = b.parts[:0]
	var last ClientID
	for _, e := range b.r.Ready().Messages {
		if e.Reliable || binary.LittleEndian.Uint16(e.Data[11:]) == 0 {
			continue
		}
		if e.To != last && len(b.parts) > 0 {
			b.acks[last] = AppendAck(b.acks[last], b.parts)
			b.parts = b.parts[:0]
		}
		last = e.To
		b.parts = append(b.parts, PartID{Tick: binary.LittleEndian.Uint64(e.Data[1:]), First: protocol.EntityID(binary.LittleEndian.Uint32(e.Data[HeaderSize+1:]))})
	}
	if len(b.parts) > 0 {
		b.acks[last] = AppendAck(b.acks[last], b.parts)
	}
	b.r.Advance()
}

// step feeds the acknowledgements to the room (server work).
func (b *battleRoom) step(tb testing.TB) {
	for id, a := range b.acks {
		if len(a) > 0 {
			if err := b.r.Step(ClientID(id), a); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// BenchmarkServerTick is the server's cost per tick besides the
// simulation's own tick: fog update for 8 players, deltas against the
// acknowledged state, priority accumulator and budget, serialisation,
// and the acknowledgements' processing; 8 players, about 2,000 units in
// combat.
func BenchmarkServerTick(b *testing.B) {
	br := newBattleRoom(b, Config{})
	var bytes, visible int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		br.simulate(b)
		b.StartTimer()
		br.r.Publish()
		b.StopTimer()
		for _, e := range br.r.Ready().Messages {
			bytes += len(e.Data)
		}
		for pl := 1; pl <= 8; pl++ {
			visible += len(br.r.Fog().VisibleEntities(protocol.PlayerID(pl)))
		}
		br.acknowledge(b)
		b.StartTimer()
		br.step(b)
	}
	b.ReportMetric(float64(bytes)/float64(b.N)/8, "bytes/client/tick")
	b.ReportMetric(float64(visible)/float64(b.N)/8, "visible/client")
	b.ReportMetric(float64(scenario.Units(br.r.sim)), "units")
}
