package msg_test

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/tickwire/tickwire/lockstep/msg"
)

func desyncSamples() []msg.Message {
	return []msg.Message{
		&msg.DebugLevel{Level: 2},
		&msg.DesyncDebugRequest{Tick: 300, Level: 1},
		&msg.DesyncDebugReport{Tick: 300, StateHash: 0x1122334455667788, RNG: 42, Leaves: 11, Children: []uint64{7, 9}},
		&msg.DesyncDebugReport{Tick: 30, StateHash: 1, RNG: 2, Leaves: 1},
		&msg.MerkleQuery{Tick: 300, Depth: 2, Index: 3},
		&msg.MerkleNodes{Tick: 300, Depth: 1, Index: 1, Left: 0xAA, Right: 0xBB},
		&msg.LeafEntities{Tick: 300, Leaf: 5, Label: "player 2 units", Fields: []string{"health", "pos.x"},
			Entities: []msg.LeafEntity{{ID: 17, Values: []int64{99, -5120}}, {ID: 18, Values: []int64{100, 0}}}},
		&msg.LeafEntities{Tick: 300, Leaf: 0, Label: "world"},
		&msg.DesyncReport{Tick: 300, JSON: []byte(`{"tick":300}`)},
	}
}

// TestDesyncGoldenBytes pins the desync messages' layouts (package doc).
func TestDesyncGoldenBytes(t *testing.T) {
	for _, tc := range []struct {
		m    msg.Message
		want string
	}{
		{&msg.DebugLevel{Level: 3}, "c0004c03"},
		{&msg.DesyncDebugRequest{Tick: 300, Level: 1}, "804aac0201"},
		{&msg.DesyncDebugReport{Tick: 1, StateHash: 2, RNG: 3, Leaves: 3, Children: []uint64{4, 5}},
			"804b01" + "0200000000000000" + "0300000000000000" + "03" + "02" + "0400000000000000" + "0500000000000000"},
		{&msg.MerkleQuery{Tick: 1, Depth: 2, Index: 3}, "804c010203"},
		{&msg.MerkleNodes{Tick: 1, Depth: 0, Index: 0, Left: 1, Right: 2}, "804d010000" + "0100000000000000" + "0200000000000000"},
		{&msg.LeafEntities{Tick: 1, Leaf: 2, Label: "w", Fields: []string{"hp"}, Entities: []msg.LeafEntity{{ID: 3, Values: []int64{-1}}}},
			"804e0102" + "0177" + "01" + "026870" + "01" + "03" + "01"},
		{&msg.DesyncReport{Tick: 1, JSON: []byte("{}")}, "804f01027b7d"},
	} {
		b, err := msg.Codec{}.Append(nil, tc.m)
		if err != nil {
			t.Fatalf("%T: %v", tc.m, err)
		}
		if got := hex.EncodeToString(b); got != tc.want {
			t.Errorf("%T: %s, want %s", tc.m, got, tc.want)
		}
	}
}

// TestDesyncRejects checks the bounds on both sides of the codec.
func TestDesyncRejects(t *testing.T) {
	for _, m := range []msg.Message{
		&msg.DebugLevel{Level: 4},
		&msg.DesyncDebugRequest{Level: 9},
		&msg.DesyncDebugReport{Leaves: 0},
		&msg.DesyncDebugReport{Leaves: 4, Children: []uint64{1}},
		&msg.DesyncDebugReport{Leaves: 1, Children: []uint64{1, 2}},
		&msg.MerkleQuery{Depth: 2, Index: 4},
		&msg.MerkleQuery{Depth: msg.MaxMerkleDepth + 1},
		&msg.MerkleNodes{Depth: msg.MaxMerkleDepth},
		&msg.LeafEntities{Fields: []string{"a"}, Entities: []msg.LeafEntity{{ID: 1}}},
		&msg.LeafEntities{Label: string(make([]byte, msg.MaxLabel+1))},
		&msg.LeafEntities{Fields: make([]string, msg.MaxLeafFields+1)},
		&msg.LeafEntities{Fields: []string{"\xff"}},
		&msg.DesyncReport{JSON: make([]byte, msg.MaxReportJSON+1)},
	} {
		if _, err := (msg.Codec{}).Append(nil, m); !errors.Is(err, msg.ErrRange) {
			t.Errorf("%T %+v: Append error %v, want ErrRange", m, m, err)
		}
	}
	for _, in := range []string{
		"c0004c04", // level 4
		"804b01" + "0200000000000000" + "0300000000000000" + "00" + "00", // no leaves
		"804c010204",               // index 4 at depth 2
		"804e0102017701026870ff7f", // 16383 entities in no bytes
		"804e01020177410000",       // 65 fields
	} {
		b, _ := hex.DecodeString(in)
		if m, err := (msg.Codec{}).Decode(b); err == nil {
			t.Errorf("%s decoded to %+v", in, m)
		}
	}
}

// TestLeafEntitiesCountCannotWrap: an entity count whose product with the
// field count wraps around 2^64 is refused, not allocated.
func TestLeafEntitiesCountCannotWrap(t *testing.T) {
	b, err := msg.Codec{}.Append(nil, &msg.LeafEntities{Tick: 1, Leaf: 2, Label: "w", Fields: []string{"hp"}})
	if err != nil {
		t.Fatal(err)
	}
	if b[len(b)-1] != 0 {
		t.Fatalf("the message does not end with its entity count 0: % x", b)
	}
	b = binary.AppendUvarint(b[:len(b)-1], 1<<63) // (1 + 1 field) · 2^63 wraps to 0
	b = append(b, 0, 0, 0, 0)
	if m, err := (msg.Codec{}).Decode(b); err == nil {
		t.Fatalf("decoded %+v", m)
	}
}
