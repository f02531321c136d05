package join_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/wire"
)

// samples returns join messages of every type and kind, with
// representative values.
func samples() []join.Message {
	return []join.Message{
		&join.JoinRoom{Room: "lobby-7", RoomSize: 8},
		&join.JoinRoom{Room: "", RoomSize: 1},
		&join.JoinRoom{Room: "cup-final", RoomSize: 2, NetworkModel: "fog_authoritative", MatchType: "tournament"},
		&join.JoinRoom{Room: "watch", RoomSize: 2, As: join.AsSpectator},
		&join.JoinRoom{Room: "back", RoomSize: 2, As: join.AsRejoin, Player: 2, Secret: join.RejoinSecret{0xFF, 15: 1}},
		&join.JoinAccepted{Player: 3, RoomSize: 8, TickRate: 30, NetworkModel: "lockstep"},
		&join.JoinAccepted{Player: 1, RoomSize: 1, TickRate: 60},
		&join.JoinAccepted{Player: 2, RoomSize: 2, TickRate: 30, NetworkModel: "fog_authoritative", Secret: join.RejoinSecret{7}},
		&join.JoinAccepted{Player: 0, RoomSize: 2, TickRate: 30},
		&join.JoinRefused{Reason: join.RefuseRoomFull, Detail: "room \"lobby-7\" has 8 of 8 players"},
		&join.JoinRefused{Reason: join.RefuseShutdown},
		&join.Leave{},
		&join.MatchResult{Certificate: []byte(`{"record":{"id":7},"server_key":"ab","signature":"cd"}`)},
		&join.MatchResult{Certificate: []byte{0}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, m := range samples() {
		b, err := m.Append(nil)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		got, err := join.Parse(b)
		if err != nil {
			t.Fatalf("%T: parse: %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%T: round trip\n got %+v\nwant %+v", m, got, m)
		}
	}
}

func TestParseRejectsTruncationAndTrailing(t *testing.T) {
	for _, m := range samples() {
		b, _ := m.Append(nil)
		for n := range len(b) {
			if _, err := join.Parse(b[:n]); err == nil {
				t.Errorf("%T: %d of %d bytes parsed without error", m, n, len(b))
			}
		}
		if _, err := join.Parse(append(bytes.Clone(b), 0)); !errors.Is(err, join.ErrMalformed) || !errors.Is(err, wire.ErrTrailing) {
			t.Errorf("%T + trailing byte: %v", m, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, join.ErrMalformed},
		{"lockstep message", []byte{0x20, 1, 1, 1, 0, 0, 0, 0, 0, 0}, join.ErrUnknownType},
		{"unknown three-byte type", []byte{0xC0, 0x00, 0x57}, join.ErrUnknownType},
		{"reserved prefix", []byte{0xF0}, join.ErrMalformed},
		{"room size 0", []byte{0xC0, 0x00, 0x50, 1, 'a', 0, 0, 0}, join.ErrRange},
		{"room name too long", append(append([]byte{0xC0, 0x00, 0x50, join.MaxRoomName + 1}, bytes.Repeat([]byte{'r'}, join.MaxRoomName+1)...), 2, 0, 0), join.ErrRange},
		{"model name too long", append(append([]byte{0xC0, 0x00, 0x50, 1, 'a', 2, join.MaxModelName + 1}, bytes.Repeat([]byte{'m'}, join.MaxModelName+1)...), 0), join.ErrRange},
		{"match type too long", append([]byte{0xC0, 0x00, 0x50, 1, 'a', 2, 0, join.MaxModelName + 1}, bytes.Repeat([]byte{'t'}, join.MaxModelName+1)...), join.ErrRange},
		{"join kind", []byte{0xC0, 0x00, 0x50, 1, 'a', 2, 0, 0, 3}, join.ErrRange},
		{"rejoin zero secret", append([]byte{0xC0, 0x00, 0x50, 1, 'a', 2, 0, 0, 2, 1}, make([]byte, 16)...), join.ErrRange},
		{"rejoin player > u16", append([]byte{0xC0, 0x00, 0x50, 1, 'a', 2, 0, 0, 2, 0x80, 0x80, 0x04}, bytes.Repeat([]byte{1}, 16)...), join.ErrRange},
		{"accepted model too long", append([]byte{0xC0, 0x00, 0x51, 1, 2, 30, 0, join.MaxModelName + 1}, bytes.Repeat([]byte{'m'}, join.MaxModelName+1)...), join.ErrRange},
		{"accepted secret flag", []byte{0xC0, 0x00, 0x51, 1, 2, 30, 0, 0, 2}, join.ErrRange},
		{"accepted zero secret", append([]byte{0xC0, 0x00, 0x51, 1, 2, 30, 0, 0, 1}, make([]byte, 16)...), join.ErrRange},
		{"refusal reason", []byte{0xC0, 0x00, 0x52, 99, 0}, join.ErrRange},
		{"empty match result", []byte{0xC0, 0x00, 0x54, 0}, join.ErrRange},
		{"match result beyond its bound", append([]byte{0xC0, 0x00, 0x54, 0x81, 0x80, 0x04}, make([]byte, join.MaxMatchResult+1)...), join.ErrRange},
		{"match result longer than the input", []byte{0xC0, 0x00, 0x54, 0x80, 0x80, 0x04, 1}, join.ErrMalformed},
		{"refusal detail too long", append([]byte{0xC0, 0x00, 0x52, 0, join.MaxRefusalDetail + 1, 1}, bytes.Repeat([]byte{'d'}, join.MaxRefusalDetail+1)...), join.ErrRange},
	} {
		m, err := join.Parse(tc.b)
		if !errors.Is(err, tc.want) || m != nil {
			t.Errorf("%s: got %v, %v; want %v", tc.name, m, err, tc.want)
		}
	}
}

func TestAppendErrors(t *testing.T) {
	for _, m := range []join.Message{
		&join.JoinRoom{Room: "r"},
		&join.JoinRoom{Room: string(make([]byte, join.MaxRoomName+1)), RoomSize: 2},
		&join.JoinRoom{Room: "r", RoomSize: 2, NetworkModel: string(make([]byte, join.MaxModelName+1))},
		&join.JoinRoom{Room: "r", RoomSize: 2, MatchType: string(make([]byte, join.MaxModelName+1))},
		&join.JoinRoom{Room: "r", RoomSize: 2, As: join.AsRejoin, Player: 1}, // no secret
		&join.JoinRoom{Room: "r", RoomSize: 2, As: join.NumKinds},
		&join.JoinAccepted{Player: 1, RoomSize: 2, NetworkModel: string(make([]byte, join.MaxModelName+1))},
		&join.JoinRefused{Reason: join.NumRefusalReasons},
		&join.JoinRefused{Reason: 77},
		&join.JoinRefused{Detail: string(make([]byte, join.MaxRefusalDetail+1))},
		&join.MatchResult{},
		&join.MatchResult{Certificate: make([]byte, join.MaxMatchResult+1)},
	} {
		dst := []byte{1, 2}
		out, err := m.Append(dst)
		if !errors.Is(err, join.ErrRange) {
			t.Errorf("%+v: got %v, want ErrRange", m, err)
		}
		if !bytes.Equal(out, dst) {
			t.Errorf("%+v: dst changed on error", m)
		}
	}
}

// TestJoinGolden pins the join messages byte by byte (the layout drawn
// in the package doc; the same bytes as lockstep's relay protocol had).
func TestJoinGolden(t *testing.T) {
	secret := join.RejoinSecret{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for _, tc := range []struct {
		m    join.Message
		want []byte
	}{
		{&join.JoinRoom{Room: "r1", RoomSize: 4},
			[]byte{0xC0, 0x00, 0x50, 2, 'r', '1', 4, 0, 0, 0}},
		{&join.JoinRoom{Room: "r", RoomSize: 2, NetworkModel: "fog", MatchType: "cup"},
			[]byte{0xC0, 0x00, 0x50, 1, 'r', 2, 3, 'f', 'o', 'g', 3, 'c', 'u', 'p', 0}},
		{&join.JoinRoom{Room: "r", RoomSize: 1, As: join.AsSpectator},
			[]byte{0xC0, 0x00, 0x50, 1, 'r', 1, 0, 0, 1}},
		{&join.JoinRoom{Room: "r", RoomSize: 2, As: join.AsRejoin, Player: 2, Secret: secret},
			append([]byte{0xC0, 0x00, 0x50, 1, 'r', 2, 0, 0, 2, 2}, secret[:]...)},
		{&join.JoinAccepted{Player: 300, RoomSize: 8, TickRate: 0x0102, NetworkModel: "lockstep"},
			[]byte{0xC0, 0x00, 0x51, 0xAC, 0x02, 8, 0x02, 0x01, 8, 'l', 'o', 'c', 'k', 's', 't', 'e', 'p', 0}},
		{&join.JoinAccepted{Player: 1, RoomSize: 2, TickRate: 30, NetworkModel: "fog", Secret: secret},
			append([]byte{0xC0, 0x00, 0x51, 1, 2, 30, 0, 3, 'f', 'o', 'g', 1}, secret[:]...)},
		{&join.JoinRefused{Reason: join.RefuseModelMismatch, Detail: "x"},
			[]byte{0xC0, 0x00, 0x52, 8, 1, 'x'}},
		{&join.JoinRefused{Reason: join.RefuseTooManyRooms},
			[]byte{0xC0, 0x00, 0x52, 6, 0}},
		{&join.Leave{},
			[]byte{0xC0, 0x00, 0x53}},
		{&join.MatchResult{Certificate: []byte(`{"a":1}`)},
			[]byte{0xC0, 0x00, 0x54, 7, '{', '"', 'a', '"', ':', '1', '}'}},
	} {
		b, err := tc.m.Append(nil)
		if err != nil {
			t.Fatalf("%+v: %v", tc.m, err)
		}
		if !bytes.Equal(b, tc.want) {
			t.Errorf("%+v:\n got % x\nwant % x", tc.m, b, tc.want)
		}
	}
}
