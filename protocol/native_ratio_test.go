package protocol_test

import (
	"testing"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/protocol"
)

// TestNativeCompressionRatio checks the codec against the naive fixed-width
// baseline on the seeded traffic model. Byte counts are deterministic.
func TestNativeCompressionRatio(t *testing.T) {
	m := ordertraffic.Model{Seed: 1}
	ticks := ordertraffic.Generate(m)
	packets, err := protocol.NativeCodec{}.Encode(nil, ticks)
	if err != nil {
		t.Fatal(err)
	}
	tlv := 0
	orders := 0
	for _, p := range packets {
		if len(p) > protocol.DefaultMaxPacketSize {
			t.Fatalf("packet of %d bytes exceeds %d", len(p), protocol.DefaultMaxPacketSize)
		}
		tlv += len(p)
	}
	for _, tk := range ticks {
		orders += len(tk.Orders)
	}
	naive := ordertraffic.NaiveBytes(ticks, 8)
	ratio := float64(naive) / float64(tlv)
	t.Logf("ticks=%d orders=%d packets=%d naive=%d tlv=%d ratio=%.2f tlv/order=%.1f",
		len(ticks), orders, len(packets), naive, tlv, ratio, float64(tlv)/float64(orders))
	if ratio < 5 {
		t.Fatalf("compression ratio %.2f < 5", ratio)
	}
}
