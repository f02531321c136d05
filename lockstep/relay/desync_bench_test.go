package relay

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// BenchmarkDesyncWalk localises one corrupted leaf of one player in a
// match of 8 over state trees of 11 leaves (the reference RTS of four
// players), 32 (the seed design's example) and 1,024, on 20 ms links:
// it reports the round trips, messages, node hashes and bytes of the
// walk, and the relay clock's time from the mismatch to the report
// (virtual time: the round trips at 40 ms each). The CPU time per op is
// the whole simulated match up to the report.
func BenchmarkDesyncWalk(b *testing.B) {
	for _, leaves := range []int{11, 32, 1024} {
		b.Run(fmt.Sprintf("leaves=%d", leaves), func(b *testing.B) {
			var cost WalkCost
			for b.Loop() {
				ids := []protocol.PlayerID{1, 2, 3, 4, 5, 6, 7, 8}
				n, err := newSimNet(Config{}, ids, 1)
				if err != nil {
					b.Fatal(err)
				}
				n.withTree(leaves)
				n.clients[5].corrupt(45, []int{leaves - 1}, 1)
				var got *DesyncDiagnosed
				n.onEvent = func(e Event) {
					if d, ok := e.(DesyncDiagnosed); ok {
						got = &d
					}
				}
				n.runUntil(time.Minute, func() bool { return got != nil })
				if got == nil || len(got.Report.Divergences[0].Leaves) != 1 {
					b.Fatal("no report naming one leaf")
				}
				cost = got.Report.Cost
			}
			b.ReportMetric(float64(cost.RoundTrips), "round-trips")
			b.ReportMetric(float64(cost.Messages), "messages")
			b.ReportMetric(float64(cost.Hashes), "hashes")
			b.ReportMetric(float64(cost.Bytes), "walk-bytes")
			b.ReportMetric(cost.ElapsedMs, "virtual-ms")
		})
	}
}
