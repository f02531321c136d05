package protocol_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/protocol"
)

// seedPackets returns encoder output to seed the fuzzers with.
func seedPackets(f *testing.F) [][]byte {
	f.Helper()
	var seeds [][]byte
	ticks := ordertraffic.Generate(ordertraffic.Model{Seed: 1, Ticks: 200})
	p, err := protocol.NativeCodec{}.Encode(nil, ticks)
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, p[:4]...)
	for s := range uint64(8) {
		rng := rand.New(rand.NewPCG(s, 2))
		p, err := protocol.NativeCodec{}.Encode(nil, randomTicks(rng, 4, protocol.ProtocolLimits{}))
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, p...)
	}
	return seeds
}

// FuzzNativeDecode: arbitrary bytes never panic; whatever decodes
// re-encodes to something that decodes to the same ticks.
func FuzzNativeDecode(f *testing.F) {
	for _, p := range seedPackets(f) {
		f.Add(p)
	}
	c := protocol.NativeCodec{}
	f.Fuzz(func(t *testing.T, packet []byte) {
		ticks, err := c.Decode(nil, packet)
		if err != nil {
			if ticks != nil {
				t.Fatalf("error %v with result %v", err, ticks)
			}
			return
		}
		packets, err := c.Encode(nil, ticks)
		if err != nil {
			t.Fatalf("re-encode of decoded ticks: %v", err)
		}
		again := decodeAll(t, c, packets)
		if !reflect.DeepEqual(normalise(ticks), normalise(again)) {
			t.Fatalf("decode → encode → decode changed the ticks")
		}
	})
}

// FuzzNativeRoundTrip: generated ticks survive encode and decode.
func FuzzNativeRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint8(5), uint16(476))
	f.Add(uint64(99), uint8(40), uint16(120))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, maxPacket uint16) {
		lim := protocol.ProtocolLimits{MaxPacketSize: max(int(maxPacket), 400)}
		rng := rand.New(rand.NewPCG(seed, 3))
		roundTrip(t, protocol.NativeCodec{Limits: lim}, randomTicks(rng, int(n), lim))
	})
}
