package msg_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/wire"
)

// samples returns one message of every type, with representative values.
func samples() []msg.Message {
	orders := []protocol.TimestampedOrder{
		{Player: 3, SubTickTime: 1200, Order: protocol.Move{Units: []protocol.EntityID{7, 8, 9}, Target: protocol.WorldPos{X: 5120, Y: 9216}}},
		{Player: 3, SubTickTime: 1200, Order: protocol.Sell{Building: 44}},
		{Player: 3, SubTickTime: 30000, Order: protocol.Custom{Kind: 9, Payload: []byte("hi")}},
	}
	var commit [32]byte
	for i := range commit {
		commit[i] = byte(i * 7)
	}
	return append([]msg.Message{
		&msg.OrderSubmit{Tick: 1234, SentUs: 41_900_123, AckTick: 1230, Token: 0xDEADBEEF, AckDelayUs: 812, Orders: orders},
		&msg.OrderSubmit{Tick: 5, SentUs: 1, AckTick: 0, Token: 0},
		&msg.TickFrame{Tick: 1234, Token: 0x01020304, Flags: msg.FlagSyncRequest, RunAhead: 4,
			Removals: []msg.Removal{{Player: 2, AtTick: 1240, Reason: msg.ReasonLagSwitch}},
			Orders:   []protocol.TimestampedOrder{{Player: 1, SubTickTime: 0, Order: protocol.Idle{}}, {Player: 2, SubTickTime: 17, Order: protocol.Sell{Building: 1}}}},
		&msg.TickFrame{Tick: 0, Token: 1},
		&msg.SyncHash{Tick: 90, Hash: 0x0123456789ABCDEF},
		&msg.TimingFeedback{AvgArrivalDeltaUs: -4100, LateCount: 3, JitterUs: 2200, RecommendedOffsetUs: 8500, DeadlineUs: 45_000},
		&msg.ClientMetrics{AvgLatencyUs: 81000, AvgFPS: 144, ArrivalCushion: -2, TickProcessingUs: 950},
		&msg.DesyncDetected{Tick: 1800},
		&msg.PlayerRemoved{msg.Removal{Player: 4, AtTick: 0, Reason: msg.ReasonNoReveal}},
		&msg.LateNotice{Tick: 4321, LateByUs: 34_000, Strikes: 3},
		&msg.CalibrationPing{Seq: 19, RelaySendUs: 2_000_000},
		&msg.CalibrationPong{Seq: 19, RelaySendUs: 2_000_000, ClientRecvUs: 9_000_000_000, ClientSendUs: 9_000_000_150},
		&msg.MatchTiming{TickIntervalUs: 33333, RunAhead: 3, DeadlineUs: 86000, ClockOffsetUs: -8_999_000_000, SubmitOffsetUs: -2000},
		&msg.SeedCommit{Commitment: commit},
		&msg.SeedCommitments{Commitments: []msg.Commitment{{Player: 1, Commitment: commit}, {Player: 2}}},
		&msg.SeedReveal{Contribution: commit, Nonce: [16]byte{1, 2, 3}},
		&msg.SeedResult{Seed: 0xFEEDFACECAFEBEEF, StartUs: 2_600_000},
	}, append(rejoinSamples(), desyncSamples()...)...)
}

func TestRoundTrip(t *testing.T) {
	var c msg.Codec
	for _, m := range samples() {
		b, err := c.Append(nil, m)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		got, err := c.Decode(b)
		if err != nil {
			t.Fatalf("%T: decode: %v", m, err)
		}
		if s, ok := got.(*msg.OrderSubmit); ok {
			if s.Size != len(b) {
				t.Errorf("Size = %d, want %d", s.Size, len(b))
			}
			s.Size = 0
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%T: round trip\n got %+v\nwant %+v", m, got, m)
		}
	}
}

// TestSizes pins the encoded sizes of the frequent messages.
func TestSizes(t *testing.T) {
	var c msg.Codec
	for _, tc := range []struct {
		m    msg.Message
		want int
	}{
		{&msg.OrderSubmit{Tick: 1000, SentUs: 33_400_000, AckTick: 996, Token: 1, AckDelayUs: 400}, 16},
		{&msg.TickFrame{Tick: 1000, Token: 1, RunAhead: 3}, 11},
		{&msg.SyncHash{Tick: 1000, Hash: 1}, 11},
	} {
		b, err := c.Append(nil, tc.m)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != tc.want {
			t.Errorf("%T: %d bytes, want %d", tc.m, len(b), tc.want)
		}
	}
}

func TestDecodeRejectsTruncationAndTrailing(t *testing.T) {
	var c msg.Codec
	for _, m := range samples() {
		b, _ := c.Append(nil, m)
		for n := range len(b) {
			if _, err := c.Decode(b[:n]); err == nil {
				t.Errorf("%T: %d of %d bytes decoded without error", m, n, len(b))
			}
		}
		if _, err := c.Decode(append(bytes.Clone(b), 0)); !errors.Is(err, msg.ErrMalformed) || !errors.Is(err, wire.ErrTrailing) {
			t.Errorf("%T + trailing byte: %v", m, err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	var c msg.Codec
	frame := func(f *msg.TickFrame) []byte {
		b, err := c.Append(nil, f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	badFlags := frame(&msg.TickFrame{Tick: 1})
	badFlags[1+1+4] = 0x80 // type, tick, token, flags
	submit, _ := c.Append(nil, &msg.OrderSubmit{Tick: 7, Orders: []protocol.TimestampedOrder{{Player: 1, Order: protocol.Idle{}}}})
	// A submission whose order packet names another tick: re-encode the
	// packet of tick 8 into a submission for tick 7.
	pkts, _ := protocol.NativeCodec{}.Encode(nil, []protocol.TickOrders{{Tick: 8, Orders: []protocol.TimestampedOrder{{Player: 1, Order: protocol.Idle{}}}}})
	wrongTick := append([]byte{byte(msg.TypeOrderSubmit), 7, 0, 0, 0, 0, 0, 0, 0, 1, byte(len(pkts[0]))}, pkts[0]...)
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, msg.ErrMalformed},
		{"unknown type", []byte{0x7F}, msg.ErrUnknownType},
		{"reserved prefix", []byte{0xF0}, msg.ErrMalformed},
		{"frame flags", badFlags, msg.ErrRange},
		{"removal reason", []byte{0x80, 0x43, 1, 0, 99}, msg.ErrRange},
		{"late count > u16", []byte{0x80, 0x40, 0, 0x80, 0x80, 0x04, 0, 0}, msg.ErrRange},
		{"strikes > u16", []byte{0x80, 0x44, 1, 1, 0x80, 0x80, 0x04}, msg.ErrRange},
		{"orders wrong tick", wrongTick, msg.ErrOrders},
		{"orders bad packet", append(submit[:len(submit)-2:len(submit)-2], 'Q', 'Z'), msg.ErrOrders},
		{"commitments count", []byte{0xC0, 0x00, 0x44, 5, 1}, msg.ErrMalformed},
	} {
		_, err := c.Decode(tc.b)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
		var me *msg.Error
		if err != nil && !errors.As(err, &me) {
			t.Errorf("%s: %T is not *msg.Error", tc.name, err)
		}
	}
}

func TestAppendErrors(t *testing.T) {
	var c msg.Codec
	for _, tc := range []struct {
		m    msg.Message
		want error
	}{
		{&msg.TickFrame{Flags: 0x40}, msg.ErrRange},
		{&msg.PlayerRemoved{msg.Removal{Reason: 200}}, msg.ErrRange},
		{&msg.OrderSubmit{Orders: []protocol.TimestampedOrder{{Player: 1}}}, msg.ErrOrders},
	} {
		dst := []byte{1, 2}
		out, err := c.Append(dst, tc.m)
		if !errors.Is(err, tc.want) {
			t.Errorf("%T: got %v, want %v", tc.m, err, tc.want)
		}
		if !bytes.Equal(out, dst) {
			t.Errorf("%T: dst changed on error", tc.m)
		}
	}
}

// TestTickFramePerPlayerCeiling: the per-player ceiling holds over a
// tick continued across many packets, checked once per message.
func TestTickFramePerPlayerCeiling(t *testing.T) {
	frame := func(players, each int) *msg.TickFrame {
		f := &msg.TickFrame{Tick: 3}
		for p := range players {
			for i := range each {
				f.Orders = append(f.Orders, protocol.TimestampedOrder{Player: protocol.PlayerID(p + 1), SubTickTime: uint32(i),
					Order: protocol.Move{Units: []protocol.EntityID{protocol.EntityID(i), 1 << 31}, Target: protocol.WorldPos{X: protocol.SimCoord(i)}}})
			}
		}
		return f
	}
	loose := msg.Codec{Limits: protocol.ProtocolLimits{MaxOrdersPerPlayerPerTick: 1000}}
	b, err := loose.Append(nil, frame(2, 257))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (msg.Codec{}).Decode(b); !errors.Is(err, msg.ErrOrders) || !errors.Is(err, protocol.ErrLimit) {
		t.Errorf("257 orders of one player: %v", err)
	}
	if b, err = (msg.Codec{}).Append(nil, frame(64, 256)); err != nil {
		t.Fatal(err)
	}
	m, err := msg.Codec{}.Decode(b)
	if err != nil || len(m.(*msg.TickFrame).Orders) != 64*256 {
		t.Fatalf("64 players × 256 orders: %v", err)
	}
}
