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
	return []msg.Message{
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
		&msg.JoinRoom{Room: "lobby-7", RoomSize: 8},
		&msg.JoinRoom{Room: "", RoomSize: 1},
		&msg.JoinRoom{Room: "cup-final", RoomSize: 2, NetworkModel: "fog_authoritative", MatchType: "tournament"},
		&msg.JoinAccepted{Player: 3, RoomSize: 8, TickRate: 30, NetworkModel: "lockstep"},
		&msg.JoinAccepted{Player: 1, RoomSize: 1, TickRate: 60},
		&msg.JoinRoom{Room: "watch", RoomSize: 2, As: msg.JoinSpectator},
		&msg.JoinRoom{Room: "back", RoomSize: 2, As: msg.JoinRejoin, Player: 2, Secret: msg.RejoinSecret{0xFF, 15: 1}},
		&msg.JoinAccepted{Player: 2, RoomSize: 2, TickRate: 30, NetworkModel: "fog_authoritative", Secret: msg.RejoinSecret{7}},
		&msg.JoinAccepted{Player: 0, RoomSize: 2, TickRate: 30},
		&msg.JoinRefused{Reason: msg.RefuseRoomFull, Detail: "room \"lobby-7\" has 8 of 8 players"},
		&msg.JoinRefused{Reason: msg.RefuseShutdown},
	}
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
		{"room size 0", []byte{0xC0, 0x00, 0x50, 1, 'a', 0, 0, 0}, msg.ErrRange},
		{"room name too long", append(append([]byte{0xC0, 0x00, 0x50, msg.MaxRoomName + 1}, bytes.Repeat([]byte{'r'}, msg.MaxRoomName+1)...), 2, 0, 0), msg.ErrRange},
		{"model name too long", append(append([]byte{0xC0, 0x00, 0x50, 1, 'a', 2, msg.MaxModelName + 1}, bytes.Repeat([]byte{'m'}, msg.MaxModelName+1)...), 0), msg.ErrRange},
		{"match type too long", append([]byte{0xC0, 0x00, 0x50, 1, 'a', 2, 0, msg.MaxModelName + 1}, bytes.Repeat([]byte{'t'}, msg.MaxModelName+1)...), msg.ErrRange},
		{"accepted model too long", append([]byte{0xC0, 0x00, 0x51, 1, 2, 30, 0, msg.MaxModelName + 1}, bytes.Repeat([]byte{'m'}, msg.MaxModelName+1)...), msg.ErrRange},
		{"refusal reason", []byte{0xC0, 0x00, 0x52, 99, 0}, msg.ErrRange},
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
		{&msg.JoinRoom{Room: "r"}, msg.ErrRange},
		{&msg.JoinRoom{Room: string(make([]byte, msg.MaxRoomName+1)), RoomSize: 2}, msg.ErrRange},
		{&msg.JoinRoom{Room: "r", RoomSize: 2, NetworkModel: string(make([]byte, msg.MaxModelName+1))}, msg.ErrRange},
		{&msg.JoinRoom{Room: "r", RoomSize: 2, MatchType: string(make([]byte, msg.MaxModelName+1))}, msg.ErrRange},
		{&msg.JoinAccepted{Player: 1, RoomSize: 2, NetworkModel: string(make([]byte, msg.MaxModelName+1))}, msg.ErrRange},
		{&msg.JoinRoom{Room: "r", RoomSize: 2, As: msg.JoinRejoin, Player: 1}, msg.ErrRange}, // no secret
		{&msg.JoinRoom{Room: "r", RoomSize: 2, As: msg.NumJoinKinds}, msg.ErrRange},
		{&msg.JoinRefused{Reason: msg.NumRefusalReasons}, msg.ErrRange},
		{&msg.JoinRefused{Reason: 77}, msg.ErrRange},
		{&msg.JoinRefused{Detail: string(make([]byte, msg.MaxRefusalDetail+1))}, msg.ErrRange},
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

// TestJoinGolden pins the join messages byte by byte (the field layout of
// the package doc).
func TestJoinGolden(t *testing.T) {
	var c msg.Codec
	secret := msg.RejoinSecret{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for _, tc := range []struct {
		m    msg.Message
		want []byte
	}{
		{&msg.JoinRoom{Room: "r1", RoomSize: 4},
			[]byte{0xC0, 0x00, 0x50, 2, 'r', '1', 4, 0, 0, 0}},
		{&msg.JoinRoom{Room: "r", RoomSize: 2, NetworkModel: "fog", MatchType: "cup"},
			[]byte{0xC0, 0x00, 0x50, 1, 'r', 2, 3, 'f', 'o', 'g', 3, 'c', 'u', 'p', 0}},
		{&msg.JoinRoom{Room: "r", RoomSize: 1, As: msg.JoinSpectator},
			[]byte{0xC0, 0x00, 0x50, 1, 'r', 1, 0, 0, 1}},
		{&msg.JoinRoom{Room: "r", RoomSize: 2, As: msg.JoinRejoin, Player: 2, Secret: secret},
			append([]byte{0xC0, 0x00, 0x50, 1, 'r', 2, 0, 0, 2, 2}, secret[:]...)},
		{&msg.JoinAccepted{Player: 300, RoomSize: 8, TickRate: 0x0102, NetworkModel: "lockstep"},
			[]byte{0xC0, 0x00, 0x51, 0xAC, 0x02, 8, 0x02, 0x01, 8, 'l', 'o', 'c', 'k', 's', 't', 'e', 'p', 0}},
		{&msg.JoinAccepted{Player: 1, RoomSize: 2, TickRate: 30, NetworkModel: "fog", Secret: secret},
			append([]byte{0xC0, 0x00, 0x51, 1, 2, 30, 0, 3, 'f', 'o', 'g', 1}, secret[:]...)},
		{&msg.JoinRefused{Reason: msg.RefuseModelMismatch, Detail: "x"},
			[]byte{0xC0, 0x00, 0x52, 8, 1, 'x'}},
		{&msg.JoinRefused{Reason: msg.RefuseTooManyRooms},
			[]byte{0xC0, 0x00, 0x52, 6, 0}},
	} {
		b, err := c.Append(nil, tc.m)
		if err != nil {
			t.Fatalf("%+v: %v", tc.m, err)
		}
		if !bytes.Equal(b, tc.want) {
			t.Errorf("%+v:\n got % x\nwant % x", tc.m, b, tc.want)
		}
	}
}

// TestRefusalNames: every reason has a name, and the names are distinct
// (they label the refused-join metric).
func TestRefusalNames(t *testing.T) {
	seen := map[string]bool{}
	for r := range msg.NumRefusalReasons {
		n := r.String()
		if n == "refusal?" || seen[n] {
			t.Errorf("reason %d: name %q", r, n)
		}
		seen[n] = true
	}
	if got := msg.NumRefusalReasons.String(); got != "refusal?" {
		t.Errorf("out-of-range reason named %q", got)
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
