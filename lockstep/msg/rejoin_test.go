package msg_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// rejoinSamples returns one message of every rejoin type.
func rejoinSamples() []msg.Message {
	return []msg.Message{
		&msg.RejoinStart{Seed: 0x0102030405060708, StartUs: 2_520_000, TickIntervalUs: 33333, DeadlineUs: 30000, RunAhead: 2, Attempt: 1, SnapshotTick: 3010, DelayTicks: 90},
		&msg.SnapshotRequest{Tick: 3010},
		&msg.SnapshotChunk{Tick: 3010, Index: 1, Total: 3, Data: []byte("TWS1")},
		&msg.SnapshotHash{Tick: 3010, Hash: 0x15008779d57514ec},
		&msg.SnapshotVerdict{Tick: 3010, OK: true},
		&msg.RejoinKeepalive{NextTick: 3020, Chunks: 2},
		&msg.CaughtUp{Tick: 3100},
		&msg.ObserverHello{DelayTicks: 90},
		&msg.DigestRequest{Tick: 3010},
		&msg.SnapshotDigest{Tick: 3010, Digest: [32]byte{0: 0xd1, 1: 0x9e, 31: 0x07}},
	}
}

// TestRejoinGolden pins the wire bytes of the rejoin messages.
func TestRejoinGolden(t *testing.T) {
	want := []string{
		"c000470807060504030201c0e79901b58402b0ea010201c2175a",
		"c00048c217",
		"8045c21701030454575331",
		"8046c217ec1475d579870015",
		"8047c21701",
		"8048cc1702",
		"80499c18",
		"c000495a",
		"c0004ac217",
		"8060c217d19e" + strings.Repeat("00", 29) + "07",
	}
	var c msg.Codec
	for i, m := range rejoinSamples() {
		b, err := c.Append(nil, m)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if got := hex.EncodeToString(b); got != want[i] {
			t.Errorf("%T: got %s, want %s", m, got, want[i])
		}
	}
}

// TestSnapshotChunkBounds: an empty, oversized or misnumbered chunk
// neither encodes nor decodes.
func TestSnapshotChunkBounds(t *testing.T) {
	var c msg.Codec
	for _, m := range []*msg.SnapshotChunk{
		{Index: 0, Total: 1},
		{Index: 1, Total: 1, Data: []byte{1}},
		{Index: 0, Total: msg.MaxSnapshotChunks + 1, Data: []byte{1}},
		{Index: 0, Total: 1, Data: make([]byte, msg.MaxChunkBytes+1)},
	} {
		if _, err := c.Append(nil, m); !errors.Is(err, msg.ErrRange) {
			t.Errorf("%+v: %v, want ErrRange", m.Index, err)
		}
	}
	// index 2 of 2, written by hand
	if _, err := c.Decode([]byte{0x80, 0x45, 0x01, 0x02, 0x02, 0x01, 0xAA}); !errors.Is(err, msg.ErrRange) {
		t.Errorf("decode of index 2 of 2: %v, want ErrRange", err)
	}
	if _, err := c.Decode([]byte{0x80, 0x47, 0x01, 0x02}); !errors.Is(err, msg.ErrRange) {
		t.Errorf("decode of verdict 2: %v, want ErrRange", err)
	}
}
