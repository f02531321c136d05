package predict

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

// message is what every contract message provides.
type message interface {
	Append([]byte) ([]byte, error)
	Parse([]byte) error
}

// samples are one of each message with every field set, and their golden
// encodings: a change to a layout must change this table on purpose.
var samples = []struct {
	name   string
	msg    message
	fresh  func() message
	golden string
}{
	{"InputMessage", &InputMessage{Player: 3, AckedSnap: 500, Inputs: []Input{
		{Sequence: 100, ClientTick: 501, IntendedTick: 501, TimestampMs: 8350, MoveX: 127, MoveY: -90, Jump: true, Sprint: true, Yaw: 0x4000, Pitch: -200,
			Actions: []Action{{ID: 1, Sequence: 7, StartedAtClientTick: 501, Params: []byte{0xAA}}}},
		{Sequence: 101, ClientTick: 502, IntendedTick: 502, TimestampMs: 8366, Yaw: 0x4010},
		{Sequence: 102, ClientTick: 503, IntendedTick: 503, TimestampMs: 8383, Yaw: 0x4010, Jump: true}, // same view: flag 4
	}}, func() message { return &InputMessage{} },
		"3003f40303" + "64ea0700bc8201037fa6004038ff01" + "0107f50301aa" + "01020020 00 000010400000" + "00" + "01020022 05" + "00"},
	{"InputAck", &InputAck{Player: 3, Sequence: 100, AppliedTick: 502, ServerTimeUs: 8_366_000, Late: true, Clamped: true},
		func() message { return &InputAck{} }, "310364f603b0cffe0303"},
	{"SnapshotMessage", &SnapshotMessage{ServerTick: 501, ServerTimeUs: 8_350_000, BaselineTick: 499, LateTick: 501, ClampedTick: 500, InteractedTick: 480,
		Acked:   []AckedInput{{Player: 1, Sequence: 99}, {Player: 3, Sequence: 100}},
		Events:  []Event{{ID: 9, Tick: 501, InputSeq: 100, GameEvent: GameEvent{Kind: EventSpawn, Type: 1, Player: 3, ActionSeq: 7, Entity: 42}}},
		Header:  []byte{1, 2, 3},
		Removed: []EntityID{-7, 40},
		Records: []Record{{ID: 42, Data: []byte{9, 9}}},
	}, func() message { return &SnapshotMessage{} },
		"32f503b0d2fd03f303f503f403e003" + "02016303 64" + "0109f503010103640754 0000" + "03010203" + "020d50" + "01540209 09"},
	{"EventMessage", &EventMessage{Event{ID: 10, Tick: 502, InputSeq: 0, GameEvent: GameEvent{Kind: EventOther, Type: 3, Player: 3, ActionSeq: 7, Entity: 42, Target: 5, Value: 21}}},
		func() message { return &EventMessage{} }, "80500af6030003030007540a2a"},
	{"Hello", &Hello{Player: 2, TickRate: 60, SnapshotEvery: 2, BaselineWindow: 64, MaxAhead: 30, ServerTick: 1000, ServerTimeUs: 16_666_666},
		func() message { return &Hello{} }, "c0006002 3c00 02 40 1e e807aaa0f907"},
	{"CorrectionReport", &CorrectionReport{Player: 2, Corrections: 300, HardSnaps: 1, Errors: [NumErrorBuckets]uint64{0, 5, 100, 150, 40, 4, 1, 0, 0}},
		func() message { return &CorrectionReport{} }, "33 02 ac02 01 09 00 05 64 9601 28 04 01 00 00"},
	{"Ping", &Ping{ClientTimeUs: 123456}, func() message { return &Ping{} }, "c00061c0c407"},
	{"Pong", &Pong{ClientTimeUs: 123456, ServerTimeUs: 654321, ServerTick: 39}, func() message { return &Pong{} }, "c00062c0c407f1f72727"},
}

func unspace(s string) string { return string(bytes.ReplaceAll([]byte(s), []byte(" "), nil)) }

// TestGoldenBytes pins every contract message byte for byte and checks it
// decodes back to itself.
func TestGoldenBytes(t *testing.T) {
	for _, s := range samples {
		b, err := s.msg.Append(nil)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got, want := hex.EncodeToString(b), unspace(s.golden); got != want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, want)
			continue
		}
		m := s.fresh()
		if err := m.Parse(b); err != nil {
			t.Fatalf("%s: parse: %v", s.name, err)
		}
		if !reflect.DeepEqual(m, s.msg) {
			t.Errorf("%s: round trip\n got %+v\nwant %+v", s.name, m, s.msg)
		}
	}
}

// FuzzDecoders feeds arbitrary bytes to every decoder: none may panic, an
// error must be ErrMalformed, and what decodes must re-encode to exactly
// the bytes received (every message has one accepted encoding, so a
// decoder cannot be made to accept what the encoder would never write).
func FuzzDecoders(f *testing.F) {
	for _, s := range samples {
		b, _ := s.msg.Append(nil)
		f.Add(b)
		for i := range b {
			f.Add(b[:i])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range samples {
			m := s.fresh()
			if err := m.Parse(b); err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("%s: error %v is not ErrMalformed", s.name, err)
				}
				continue
			}
			again, err := m.Append(nil)
			if err != nil {
				t.Fatalf("%s: re-encode: %v", s.name, err)
			}
			if !bytes.Equal(again, b) {
				t.Fatalf("%s: accepted % x, re-encodes to % x", s.name, b, again)
			}
		}
	})
}
