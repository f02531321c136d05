package fogauth

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// unhex reads the hex dump of a golden message, ignoring spaces, newlines
// and '|' column marks.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "", "|", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var goldenEntity = sim.EntityState{
	ID: 0x04030201, Type: 0x0605, Owner: 7,
	Pos:    protocol.WorldPos{X: 0x0c0b0a09, Y: -2, Z: 0x14131211},
	Health: 0x1615, HealthMax: 0x1817, Facing: 0x1c1b1a19,
	Target: 0x201f1e1d, Flags: 0x2221, Cargo: 0x23, Anim: 0x24, Veterancy: 0x25,
}

// TestGoldenStateUpdateHeader checks the seed's byte-offset table:
// 0 type, 1 tick u64, 9 player u16, 11 count u16, 13 deltas.
func TestGoldenStateUpdateHeader(t *testing.T) {
	got := AppendStateUpdateHeader(nil, 0x0807060504030201, 0x0a09, 0x0c0b)
	want := unhex(t, "20 | 0102030405060708 | 090a | 0b0c")
	if !bytes.Equal(got, want) || len(got) != HeaderSize {
		t.Fatalf("header\n got %x\nwant %x", got, want)
	}
}

// TestGoldenEnter checks EntityEnter against the seed's table: 0 type,
// 1 id, 5 type, 7 owner, 8 x, 12 y, 16 z, 20 health, 22 health max,
// 24 facing, 28 flags, 30 animation; 31 bytes.
func TestGoldenEnter(t *testing.T) {
	got := AppendDelta(nil, &Delta{Kind: DeltaEnter, Entity: goldenEntity})
	want := unhex(t, `01 | 01020304 | 0506 | 07 | 090a0b0c | feffffff | 11121314 |
		1516 | 1718 | 191a1b1c | 2122 | 24`)
	if !bytes.Equal(got, want) || len(got) != EnterSize {
		t.Fatalf("enter\n got %x\nwant %x", got, want)
	}
}

// TestGoldenUpdate checks EntityUpdate: 0 type, 1 id, 5 mask, 7 fields in
// bit order with the seed's sizes.
func TestGoldenUpdate(t *testing.T) {
	cases := []struct {
		mask FieldMask
		want string
	}{
		{FieldPosition, "02 | 01020304 | 0100 | 090a0b0c feffffff 11121314"},
		{FieldHealth | FieldOwner, "02 | 01020304 | 0201 | 1516 | 07"},
		{FieldsKnown, `02 | 01020304 | ff01 | 090a0b0c feffffff 11121314 | 1516 | 191a1b1c |
			1d1e1f20 | 2122 | 23 | 24 | 25 | 07`},
		{FieldTarget | FieldCargo | FieldVeterancy, "02 | 01020304 | a800 | 1d1e1f20 | 23 | 25"},
	}
	for _, c := range cases {
		d := Delta{Kind: DeltaUpdate, Mask: c.mask, Entity: goldenEntity}
		got := AppendDelta(nil, &d)
		if want := unhex(t, c.want); !bytes.Equal(got, want) || len(got) != d.Size() {
			t.Errorf("mask %#x\n got %x\nwant %x", c.mask, got, want)
		}
	}
	full := Delta{Kind: DeltaUpdate, Mask: FieldsKnown}
	if full.Size() != MaxUpdateSize || (&Delta{Kind: DeltaUpdate, Mask: FieldPosition}).Size() != 19 {
		t.Fatal("sizes: the seed's maximum is 35, a position-only update 19")
	}
}

// TestGoldenLeave checks EntityLeave: 0 type, 1 id; 5 bytes.
func TestGoldenLeave(t *testing.T) {
	got := AppendDelta(nil, &Delta{Kind: DeltaLeave, Entity: goldenEntity})
	if want := unhex(t, "03 | 01020304"); !bytes.Equal(got, want) {
		t.Fatalf("leave\n got %x\nwant %x", got, want)
	}
}

func sampleUpdate() []byte {
	b := AppendStateUpdateHeader(nil, 42, 3, 4)
	b = AppendDelta(b, &Delta{Kind: DeltaEnter, Entity: goldenEntity})
	b = AppendDelta(b, &Delta{Kind: DeltaUpdate, Mask: FieldPosition | FieldHealth, Entity: goldenEntity})
	b = AppendDelta(b, &Delta{Kind: DeltaUpdate, Mask: FieldsKnown, Entity: goldenEntity})
	return AppendDelta(b, &Delta{Kind: DeltaLeave, Entity: sim.EntityState{ID: 9}})
}

func TestStateUpdateRoundTrip(t *testing.T) {
	b := sampleUpdate()
	u, err := ParseStateUpdate(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Tick != 42 || u.Player != 3 || len(u.Deltas) != 4 {
		t.Fatalf("header %+v", u)
	}
	if got := EnterState(&goldenEntity); u.Deltas[0].Entity != got {
		t.Errorf("enter %+v, want %+v", u.Deltas[0].Entity, got)
	}
	var want sim.EntityState
	want.ID = goldenEntity.ID
	CopyFields(&want, &goldenEntity, FieldsKnown)
	if u.Deltas[2].Entity != want || u.Deltas[2].Mask != FieldsKnown {
		t.Errorf("update %+v, want %+v", u.Deltas[2].Entity, want)
	}
	// Re-encoding what was decoded gives the same bytes.
	again := AppendStateUpdateHeader(nil, u.Tick, u.Player, uint16(len(u.Deltas)))
	for i := range u.Deltas {
		again = AppendDelta(again, &u.Deltas[i])
	}
	if !bytes.Equal(again, b) {
		t.Fatalf("re-encoded\n got %x\nwant %x", again, b)
	}
}

func TestStateUpdateRejects(t *testing.T) {
	good := sampleUpdate()
	reserved := bytes.Clone(good)
	off := HeaderSize + EnterSize + 5 // second delta's mask
	binary.LittleEndian.PutUint16(reserved[off:], uint16(FieldPosition|FieldHealth|1<<9))
	cases := []struct {
		name string
		b    []byte
		err  error
	}{
		{"empty", nil, ErrTruncated},
		{"short header", good[:12], ErrTruncated},
		{"wrong type", append([]byte{0x21}, good[1:]...), ErrMessageType},
		{"truncated delta", good[:len(good)-1], ErrTruncated},
		{"trailing", append(bytes.Clone(good), 0), ErrTrailing},
		{"reserved bit", reserved, ErrReservedField},
		{"unknown delta", append(AppendStateUpdateHeader(nil, 1, 1, 1), 4, 0, 0, 0, 0), ErrDeltaType},
		{"huge count", AppendStateUpdateHeader(nil, 1, 1, 65535), ErrTruncated},
	}
	for _, c := range cases {
		if _, err := ParseStateUpdate(c.b, nil); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
}

func TestAckAndRejectionRoundTrip(t *testing.T) {
	parts := []PartID{{Tick: 7, First: 3}, {Tick: 1 << 40, First: 1<<32 - 1}}
	b := AppendAck(nil, parts)
	if want := unhex(t, "22 0200 0700000000000000 03000000 0000000000010000 ffffffff"); !bytes.Equal(b, want) {
		t.Fatalf("ack\n got %x\nwant %x", b, want)
	}
	got, err := ParseAck(b, nil)
	if err != nil || len(got) != 2 || got[0] != parts[0] || got[1] != parts[1] {
		t.Fatalf("ack %v %v", got, err)
	}
	if _, err := ParseAck(b[:len(b)-1], nil); !errors.Is(err, ErrTruncated) {
		t.Fatal(err)
	}
	r := Rejection{Tick: 5, Reason: RejectReason(sim.RejectNotOwner), Kind: protocol.KindMove, Count: 258}
	rb := AppendRejection(nil, r)
	if want := unhex(t, "23 0500000000000000 04 01 0201"); !bytes.Equal(rb, want) {
		t.Fatalf("rejection\n got %x\nwant %x", rb, want)
	}
	if back, err := ParseRejection(rb); err != nil || back != r {
		t.Fatalf("rejection %+v %v", back, err)
	}
}

// FuzzStateUpdate: the decoder never panics, accepts only what re-encodes
// to the same bytes, and never holds more deltas than the input could
// carry.
func FuzzStateUpdate(f *testing.F) {
	f.Add(sampleUpdate())
	f.Add(AppendStateUpdateHeader(nil, 0, 0, 0))
	f.Add(AppendAck(nil, []PartID{{1, 2}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseStateUpdate(b, nil)
		if err != nil {
			return
		}
		if cap(u.Deltas) > len(b)/LeaveSize {
			t.Fatalf("%d deltas of capacity for %d bytes", cap(u.Deltas), len(b))
		}
		again := AppendStateUpdateHeader(nil, u.Tick, u.Player, uint16(len(u.Deltas)))
		for i := range u.Deltas {
			again = AppendDelta(again, &u.Deltas[i])
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoded\n got %x\nwant %x", again, b)
		}
		_, _ = ParseAck(b, nil)
		_, _ = ParseRejection(b)
	})
}

// FuzzRoomStep feeds a room arbitrary client messages: it never panics,
// and a client's bad bytes never disturb what the room sends the others.
func FuzzRoomStep(f *testing.F) {
	f.Add(AppendAck(nil, []PartID{{1, 1}, {2, 5}}))
	f.Add(AppendOrders(nil, []byte{0x02, 0x00}))
	f.Add([]byte{TypeDone})
	f.Add(sampleUpdate())
	f.Fuzz(func(t *testing.T, b []byte) {
		h := newHarness(t, Config{}, fuzzMap(), sim.Config{}, 1)
		h.join(1, 1, false)
		h.join(2, 2, false)
		h.runTicks(2)
		_ = h.room.Step(1, b)
		h.runTicks(2)
		if err := h.room.RunDue(h.room.NextDeadline()); err != nil {
			t.Fatal(err)
		}
	})
}

func fuzzMap() sim.MapData {
	md := sim.MapData{Width: 16, Height: 16, Cells: make([]sim.Cell, 256), Players: 2}
	md.Entities = []sim.Placement{
		{Type: sim.TypeTank, Owner: 1, Pos: protocol.WorldPos{X: 2048, Y: 2048}},
		{Type: sim.TypeTank, Owner: 2, Pos: protocol.WorldPos{X: 6144, Y: 2048}},
	}
	return md
}
