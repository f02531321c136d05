package msg_test

import (
	"math"
	"testing"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// BenchmarkDecodeLargestTickFrame decodes the largest tick frame of a
// 64-player match: 16,384 Moves of 64 units, one order packet each (about
// 5.7 MB). Decoding must stay linear in the packets.
func BenchmarkDecodeLargestTickFrame(b *testing.B) {
	f := &msg.TickFrame{Tick: 9}
	for p := range 64 {
		for i := range protocol.DefaultMaxOrdersPerPlayerPerTick {
			units := make([]protocol.EntityID, protocol.DefaultMaxUnitsPerOrder)
			for j := range units {
				units[j] = 1<<28 + protocol.EntityID(i)
				if j%2 == 1 {
					units[j] = math.MaxUint32
				}
			}
			f.Orders = append(f.Orders, protocol.TimestampedOrder{Player: protocol.PlayerID(p + 1), SubTickTime: uint32(i),
				Order: protocol.Move{Units: units, Target: protocol.WorldPos{X: math.MinInt32 + protocol.SimCoord(i), Y: -1 << 30}}})
		}
	}
	enc, err := msg.Codec{}.Append(nil, f)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if _, err := (msg.Codec{}).Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(enc)), "frame-bytes")
}
