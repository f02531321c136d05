package protocol_test

import (
	"testing"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/protocol"
)

func benchTraffic() ([]protocol.TickOrders, int) {
	ticks := ordertraffic.Generate(ordertraffic.Model{Seed: 1, Ticks: 3000})
	n := 0
	for _, t := range ticks {
		n += len(t.Orders)
	}
	return ticks, n
}

func BenchmarkNativeEncode(b *testing.B) {
	ticks, orders := benchTraffic()
	c := protocol.NativeCodec{}
	packets, _ := c.Encode(nil, ticks)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		packets, _ = c.Encode(packets[:0], ticks)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*orders), "ns/order")
}

func BenchmarkNativeDecode(b *testing.B) {
	ticks, orders := benchTraffic()
	c := protocol.NativeCodec{}
	packets, _ := c.Encode(nil, ticks)
	out := make([]protocol.TickOrders, 0, len(ticks))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out = out[:0]
		for _, p := range packets {
			out, _ = c.Decode(out, p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*orders), "ns/order")
}
