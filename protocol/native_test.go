package protocol_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/protocol"
)

// decodeAll feeds packets through Decode in order.
func decodeAll(t testing.TB, c protocol.NativeCodec, packets [][]byte) []protocol.TickOrders {
	t.Helper()
	var out []protocol.TickOrders
	for i, p := range packets {
		var err error
		if out, err = c.Decode(out, p); err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
	}
	return out
}

func roundTrip(t testing.TB, c protocol.NativeCodec, ticks []protocol.TickOrders) [][]byte {
	t.Helper()
	packets, err := c.Encode(nil, ticks)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	max := c.Limits.WithDefaults().MaxPacketSize
	for i, p := range packets {
		if len(p) > max {
			t.Fatalf("packet %d is %d bytes > %d", i, len(p), max)
		}
	}
	got := decodeAll(t, c, packets)
	if !reflect.DeepEqual(normalise(ticks), normalise(got)) {
		t.Fatalf("round trip differs:\n in: %+v\nout: %+v", ticks, got)
	}
	return packets
}

// normalise maps empty slices to nil, which is how Decode returns them.
func normalise(ticks []protocol.TickOrders) []protocol.TickOrders {
	out := make([]protocol.TickOrders, len(ticks))
	for i, t := range ticks {
		out[i].Tick = t.Tick
		for _, o := range t.Orders {
			switch v := o.Order.(type) {
			case protocol.Move:
				if len(v.Units) == 0 {
					v.Units = nil
				}
				o.Order = v
			case protocol.Attack:
				if len(v.Units) == 0 {
					v.Units = nil
				}
				o.Order = v
			case protocol.Custom:
				if len(v.Payload) == 0 {
					v.Payload = nil
				}
				o.Order = v
			}
			out[i].Orders = append(out[i].Orders, o)
		}
	}
	return out
}

func TestNativeRoundTripTrafficModel(t *testing.T) {
	ticks := ordertraffic.Generate(ordertraffic.Model{Seed: 7, Ticks: 2000})
	roundTrip(t, protocol.NativeCodec{}, ticks)
}

// randomTicks makes adversarially varied ticks: every kind, extreme values,
// gaps, empty ticks and ticks too large for one packet.
func randomTicks(rng *rand.Rand, n int, lim protocol.ProtocolLimits) []protocol.TickOrders {
	lim = lim.WithDefaults()
	ticks := make([]protocol.TickOrders, 0, n)
	tick := rng.Uint64N(1 << 40)
	for range n {
		tick += 1 + uint64(rng.IntN(3))*uint64(rng.IntN(1000))
		var orders []protocol.TimestampedOrder
		count := rng.IntN(6)
		if rng.IntN(20) == 0 {
			count = 200 + rng.IntN(300) // spills over several packets
		}
		players := 1 + rng.IntN(8)
		perPlayer := make(map[protocol.PlayerID]int)
		for range count {
			p := protocol.PlayerID(rng.IntN(players))
			if rng.IntN(50) == 0 {
				p = math.MaxUint16
			}
			if perPlayer[p] == lim.MaxOrdersPerPlayerPerTick {
				continue
			}
			perPlayer[p]++
			orders = append(orders, protocol.TimestampedOrder{
				Player:      p,
				Order:       randomOrder(rng, lim),
				SubTickTime: randomU32(rng),
			})
		}
		ticks = append(ticks, protocol.TickOrders{Tick: tick, Orders: orders})
	}
	return ticks
}

func randomU32(rng *rand.Rand) uint32 {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return math.MaxUint32 - rng.Uint32N(3)
	}
	return rng.Uint32N(66_667)
}

func randomCoord(rng *rand.Rand) protocol.SimCoord {
	switch rng.IntN(5) {
	case 0:
		return math.MinInt32 + protocol.SimCoord(rng.IntN(3))
	case 1:
		return math.MaxInt32 - protocol.SimCoord(rng.IntN(3))
	case 2:
		return protocol.SimCoord(rng.IntN(64))*protocol.CellSize + protocol.CellSize/2
	case 3:
		return protocol.SimCoord(rng.IntN(64)-32) * protocol.CellSize
	}
	return protocol.SimCoord(rng.Int32N(1<<20) - 1<<19)
}

func randomPos(rng *rand.Rand) protocol.WorldPos {
	return protocol.WorldPos{X: randomCoord(rng), Y: randomCoord(rng), Z: randomCoord(rng) * protocol.SimCoord(rng.IntN(2))}
}

func randomUnits(rng *rand.Rand, lim protocol.ProtocolLimits) []protocol.EntityID {
	n := rng.IntN(lim.MaxUnitsPerOrder + 1)
	if n == 0 {
		return nil
	}
	units := make([]protocol.EntityID, n)
	for i := range units {
		if rng.IntN(10) == 0 {
			units[i] = protocol.EntityID(rng.Uint32())
		} else {
			units[i] = protocol.EntityID(rng.IntN(40))
		}
	}
	return units
}

func randomOrder(rng *rand.Rand, lim protocol.ProtocolLimits) protocol.PlayerOrder {
	switch protocol.OrderKind(rng.IntN(7)) {
	case protocol.KindIdle:
		return protocol.Idle{}
	case protocol.KindMove:
		return protocol.Move{Units: randomUnits(rng, lim), Target: randomPos(rng)}
	case protocol.KindAttack:
		t := protocol.Target{Kind: protocol.TargetGround, Pos: randomPos(rng)}
		if rng.IntN(2) == 0 {
			t = protocol.Target{Kind: protocol.TargetEntity, Entity: protocol.EntityID(rng.Uint32())}
		}
		return protocol.Attack{Units: randomUnits(rng, lim), Target: t}
	case protocol.KindBuild:
		return protocol.Build{Structure: protocol.StructureType(rng.Uint32()), Pos: randomPos(rng)}
	case protocol.KindSetRallyPoint:
		return protocol.SetRallyPoint{Building: protocol.EntityID(rng.Uint32()), Pos: randomPos(rng)}
	case protocol.KindSell:
		return protocol.Sell{Building: protocol.EntityID(rng.Uint32())}
	}
	var payload []byte
	if n := rng.IntN(lim.MaxCustomPayload + 1); n > 0 {
		payload = make([]byte, n)
		for i := range payload {
			payload[i] = byte(rng.Uint32())
		}
	}
	return protocol.Custom{Kind: uint16(rng.Uint32()), Payload: payload}
}

// TestNativeRoundTripRandom is the property test: decode(encode(x)) == x for
// many generated x, including ticks split across packets.
func TestNativeRoundTripRandom(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		roundTrip(t, protocol.NativeCodec{}, randomTicks(rng, 1+rng.IntN(40), protocol.ProtocolLimits{}))
	}
}

func TestNativeSplitsLargeTick(t *testing.T) {
	var orders []protocol.TimestampedOrder
	for p := range protocol.PlayerID(8) {
		for i := range protocol.DefaultMaxOrdersPerPlayerPerTick {
			orders = append(orders, protocol.TimestampedOrder{
				Player: p, SubTickTime: uint32(i * 100),
				Order: protocol.Move{Units: []protocol.EntityID{protocol.EntityID(i), protocol.EntityID(i + 9)}, Target: protocol.WorldPos{X: protocol.SimCoord(i)}},
			})
		}
	}
	ticks := []protocol.TickOrders{{Tick: 5}, {Tick: 6, Orders: orders}, {Tick: 7}}
	packets := roundTrip(t, protocol.NativeCodec{}, ticks)
	if len(packets) < 10 {
		t.Fatalf("2048 orders fit in %d packets; expected a split", len(packets))
	}
	for i, p := range packets[1:] {
		if p[0]&1 == 0 && i+2 < len(packets) {
			t.Errorf("packet %d does not continue the tick", i+1)
		}
	}
}

func TestNativeEmptyTickIsOneByte(t *testing.T) {
	ticks := make([]protocol.TickOrders, 100)
	for i := range ticks {
		ticks[i].Tick = uint64(1000 + i)
	}
	packets := roundTrip(t, protocol.NativeCodec{}, ticks)
	// header, 'K', varint(1000) = 2 bytes, then 100 × 'Z'.
	if len(packets) != 1 || len(packets[0]) != 1+1+2+100 {
		t.Fatalf("got %d packets, first %d bytes", len(packets), len(packets[0]))
	}
}

func TestNativeEncodeErrors(t *testing.T) {
	move := func(n int) protocol.PlayerOrder { return protocol.Move{Units: make([]protocol.EntityID, n)} }
	tooMany := make([]protocol.TimestampedOrder, protocol.DefaultMaxOrdersPerPlayerPerTick+1)
	for i := range tooMany {
		tooMany[i].Order = protocol.Idle{}
	}
	tests := []struct {
		name  string
		ticks []protocol.TickOrders
		want  error
	}{
		{"ticks out of order", []protocol.TickOrders{{Tick: 2}, {Tick: 2}}, protocol.ErrTicksOutOfOrder},
		{"nil order", []protocol.TickOrders{{Tick: 1, Orders: []protocol.TimestampedOrder{{}}}}, protocol.ErrInvalidOrderValue},
		{"too many units", []protocol.TickOrders{{Tick: 1, Orders: []protocol.TimestampedOrder{{Order: move(65)}}}}, protocol.ErrLimit},
		{"too many orders", []protocol.TickOrders{{Tick: 1, Orders: tooMany}}, protocol.ErrLimit},
		{"custom too large", []protocol.TickOrders{{Tick: 1, Orders: []protocol.TimestampedOrder{{Order: protocol.Custom{Payload: make([]byte, 257)}}}}}, protocol.ErrLimit},
		{"bad target kind", []protocol.TickOrders{{Tick: 1, Orders: []protocol.TimestampedOrder{{Order: protocol.Attack{Target: protocol.Target{Kind: 9}}}}}}, protocol.ErrInvalidOrderValue},
	}
	for _, tt := range tests {
		if _, err := (protocol.NativeCodec{}).Encode(nil, tt.ticks); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	big := protocol.NativeCodec{Limits: protocol.ProtocolLimits{MaxPacketSize: 40, MaxUnitsPerOrder: 64}}
	if _, err := big.Encode(nil, []protocol.TickOrders{{Tick: 1, Orders: []protocol.TimestampedOrder{{Order: move(64)}}}}); !errors.Is(err, protocol.ErrOrderTooLarge) {
		t.Errorf("order larger than a packet: got %v", err)
	}
}

func TestNativeDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		packet []byte
		want   error
	}{
		{"empty", nil, protocol.ErrTruncated},
		{"header only", []byte{2}, protocol.ErrTruncated},
		{"bad version", []byte{4, 'K', 1, 'Z'}, protocol.ErrBadVersion},
		{"no first tick", []byte{2, 'Z'}, protocol.ErrUnknownTag},
		{"unterminated group", []byte{2, 'K', 1}, protocol.ErrTruncated},
		{"truncated varint", []byte{2, 'K', 0x80}, protocol.ErrTruncated},
		{"overlong varint", []byte{2, 'K', 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, protocol.ErrBadVarint},
		{"unknown tag", []byte{2, 'K', 1, 'Q'}, protocol.ErrUnknownTag},
		{"tag twice", []byte{2, 'K', 1, 'P', 1, 'P', 2, 'D', 'Z'}, protocol.ErrUnknownTag},
		{"tags without order", []byte{2, 'K', 1, 'P', 1, 'Z'}, protocol.ErrUnknownTag},
		{"player out of range", []byte{2, 'K', 1, 'P', 0x80, 0x80, 0x04, 'D', 'Z'}, protocol.ErrValueRange},
		{"unknown kind", []byte{2, 'K', 1, 'T', 9, 'Z'}, protocol.ErrValueRange},
		{"same units, none before", []byte{2, 'K', 1, 'T', 1, 0, 0, 0, 0, 'Z'}, protocol.ErrNoPrevious},
		{"relative pos, none before", []byte{2, 'K', 1, 'T', 1, 1, 1, 0, 0, 'Z'}, protocol.ErrNoPrevious},
		{"bad pos mode", []byte{2, 'K', 1, 'T', 1, 1, 0x10, 0, 0, 'Z'}, protocol.ErrValueRange},
		{"too many units", []byte{2, 'K', 1, 'T', 1, 66, 'Z'}, protocol.ErrLimit},
		{"units past end", []byte{2, 'K', 1, 'T', 1, 5, 1}, protocol.ErrTruncated},
		{"custom too large", []byte{2, 'K', 1, 'T', 6, 0, 0x81, 0x02, 'Z'}, protocol.ErrValueRange},
		{"custom past end", []byte{2, 'K', 1, 'T', 6, 0, 5, 1, 2}, protocol.ErrTruncated},
		{"bad attack target", []byte{2, 'K', 1, 'T', 2, 1, 7, 'Z'}, protocol.ErrValueRange},
		{"orphan continuation", []byte{3, 'K', 1, 'Z'}, protocol.ErrBadContinuation},
		{"bytes after C", []byte{2, 'K', 1, 'C', 'Z'}, protocol.ErrUnknownTag},
		{"zero tick delta", []byte{2, 'K', 1, 'Z', 'K', 0, 'Z'}, protocol.ErrValueRange},
		{"tick overflow", []byte{2, 'K', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'Z', 'Z'}, protocol.ErrValueRange},
		{"coordinate overflow", []byte{2, 'K', 1, 'T', 4, 1, 0, 0xfe, 0xff, 0xff, 0xff, 0x1f, 0, 'Z'}, protocol.ErrValueRange},
		{"packet too large", append([]byte{2, 'K', 1}, make([]byte, 500)...), protocol.ErrPacketTooLarge},
	}
	for _, tt := range tests {
		got, err := protocol.NativeCodec{}.Decode(nil, tt.packet)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
		var de *protocol.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("%s: error %T is not a *DecodeError", tt.name, err)
		}
		if got != nil {
			t.Errorf("%s: returned %v on error", tt.name, got)
		}
	}
}

func TestNativeDecodeOrderCeiling(t *testing.T) {
	p := []byte{2, 'K', 1, 'D'}
	for range protocol.DefaultMaxOrdersPerPlayerPerTick {
		p = append(p, 'D')
	}
	p = append(p, 'Z')
	if _, err := (protocol.NativeCodec{}).Decode(nil, p); !errors.Is(err, protocol.ErrLimit) {
		t.Fatalf("257 orders from one player: got %v", err)
	}
	if _, err := (protocol.NativeCodec{}).Decode(nil, append(p[:3+256:3+256], 'Z')); err != nil {
		t.Fatalf("256 orders from one player: %v", err)
	}
}

func TestNativeProtocolID(t *testing.T) {
	if got := (protocol.NativeCodec{}).ProtocolID(); got != 0x54570001 {
		t.Fatalf("ProtocolID = %#x", got)
	}
	var _ protocol.OrderCodec = protocol.NativeCodec{}
}

// TestNativeDecodeTickLimitsAcrossPackets: a tick continued over many
// packets still meets the per-player and per-tick ceilings.
func TestNativeDecodeTickLimitsAcrossPackets(t *testing.T) {
	idle := func(players, each int) []protocol.TickOrders {
		var orders []protocol.TimestampedOrder
		for p := range players {
			for range each {
				orders = append(orders, protocol.TimestampedOrder{Player: protocol.PlayerID(p), Order: protocol.Idle{}})
			}
		}
		return []protocol.TickOrders{{Tick: 9, Orders: orders}}
	}
	decode := func(c protocol.NativeCodec, packets [][]byte) error {
		var out []protocol.TickOrders
		for _, p := range packets {
			var err error
			if out, err = c.Decode(out, p); err != nil {
				return err
			}
		}
		return nil
	}
	loose := protocol.NativeCodec{Limits: protocol.ProtocolLimits{MaxOrdersPerPlayerPerTick: 1000, MaxOrdersPerTick: 100_000}}
	// 40 players × 10 orders against a 300-order tick ceiling.
	packets, err := loose.Encode(nil, idle(40, 10))
	if err != nil {
		t.Fatal(err)
	}
	strict := protocol.NativeCodec{Limits: protocol.ProtocolLimits{MaxOrdersPerTick: 300}}
	if err := decode(strict, packets); !errors.Is(err, protocol.ErrLimit) {
		t.Errorf("400 orders against a 300-order ceiling: %v", err)
	}
	// One player with 600 orders, spread over several packets.
	if packets, err = loose.Encode(nil, idle(1, 600)); err != nil {
		t.Fatal(err)
	}
	if len(packets) < 2 {
		t.Fatalf("600 idle orders fit in one packet")
	}
	if err := decode(protocol.NativeCodec{}, packets); !errors.Is(err, protocol.ErrLimit) {
		t.Errorf("600 orders from one player across packets: %v", err)
	}
	// At the default ceilings exactly, everything passes.
	if packets, err = (protocol.NativeCodec{}).Encode(nil, idle(64, 256)); err != nil {
		t.Fatal(err)
	}
	if err := decode(protocol.NativeCodec{}, packets); err != nil {
		t.Errorf("64 players × 256 orders: %v", err)
	}
	if _, err := (protocol.NativeCodec{}).Encode(nil, idle(65, 256)); !errors.Is(err, protocol.ErrLimit) {
		t.Errorf("encoding 65 × 256 orders: %v", err)
	}
}

// TestNativeDecodeFailedContinuationLeavesDst: a continuation packet cut
// short at any byte fails without touching the tick it continues, as
// Decode promises, although it had decoded some of its orders.
func TestNativeDecodeFailedContinuationLeavesDst(t *testing.T) {
	var orders []protocol.TimestampedOrder
	for i := range 200 {
		orders = append(orders, protocol.TimestampedOrder{Player: protocol.PlayerID(1 + i%3), SubTickTime: uint32(i),
			Order: protocol.Move{Units: []protocol.EntityID{protocol.EntityID(i), protocol.EntityID(i + 5)}, Target: protocol.WorldPos{X: protocol.SimCoord(i * 7)}}})
	}
	c := protocol.NativeCodec{}
	packets, err := c.Encode(nil, []protocol.TickOrders{{Tick: 4, Orders: orders}, {Tick: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if len(packets) < 3 || packets[1][0]&1 == 0 {
		t.Fatalf("%d packets, the second not a continuation", len(packets))
	}
	dst := decodeAll(t, c, packets[:1])
	want := clone(dst)
	cont, failures := packets[1], 0
	for n := range len(cont) {
		got, err := c.Decode(dst, cont[:n])
		if err == nil {
			continue // a cut after a complete group is a valid packet
		}
		failures++
		if !reflect.DeepEqual(dst, want) || !reflect.DeepEqual(got, want) {
			t.Fatalf("continuation cut to %d of %d bytes (%v) changed dst: %d orders in its last tick, want %d",
				n, len(cont), err, len(dst[len(dst)-1].Orders), len(want[len(want)-1].Orders))
		}
	}
	if failures < len(cont)/2 {
		t.Fatalf("only %d of %d cuts failed", failures, len(cont))
	}
	// The whole packet still continues the tick.
	if got := decodeAll(t, c, packets); !reflect.DeepEqual(normalise(got), normalise([]protocol.TickOrders{{Tick: 4, Orders: orders}, {Tick: 5}})) {
		t.Fatal("round trip after the cuts differs")
	}
}

func clone(ticks []protocol.TickOrders) []protocol.TickOrders {
	out := make([]protocol.TickOrders, len(ticks))
	for i, t := range ticks {
		out[i] = protocol.TickOrders{Tick: t.Tick, Orders: append([]protocol.TimestampedOrder(nil), t.Orders...)}
	}
	return out
}
