package msg_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/statesync/msg"
	"github.com/tickwire/tickwire/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// samples holds one message of every type, with every optional part set.
func samples() map[string]msg.Message {
	return map[string]msg.Message{
		"tick": &msg.Tick{
			Frame: 100, ReliabilityVersion: 17, ClientListVersion: 42,
			Inputs:     []msg.ClientInput{{Client: 1, Data: []byte{0xAA}}, {Client: 7, Data: []byte{0xBB, 0xCC}}},
			HasVerdict: true, Verdict: msg.Verdict{Frame: 98, Hash: 0xDEADBEEF, Desynced: []uint32{7}},
			HasAssembled: true, Assembled: msg.Assembled{Frame: 97, Hash: 0x01020304, Delta: []byte{1, 2, 3}},
			Requests: []msg.Request{{Client: 7, Kind: msg.RequestFreeze}, {Client: 1, Kind: msg.RequestFullPart, Part: 1, Parts: 2}},
			Digest:   true, Parts: 6,
		},
		"tick-bare":            &msg.Tick{Frame: 1, ReliabilityVersion: 1, ClientListVersion: 1},
		"input":                &msg.Input{Data: []byte("up")},
		"state-hash":           &msg.StateHash{Frame: 100, Hash: 0xCAFEBABE},
		"partition-data":       &msg.PartitionData{Frame: 100, ListVersion: 42, Part: 2, Parts: 6, Encoding: msg.Raw, Data: []byte{9, 8, 7}},
		"partition-request":    &msg.PartitionRequest{Frame: 100, Part: 2, Parts: 6},
		"reliability-update":   &msg.ReliabilityUpdate{Version: 17, Scores: []msg.Score{{Client: 1, Score: 16384}, {Client: 7, Score: 11468}}},
		"client-list-update":   &msg.ClientListUpdate{Version: 42, Clients: []uint32{1, 7, 9}},
		"state-digest":         &msg.StateDigest{Frame: 100, Entities: 250, Digest: msg.Digest{1, 2, 3, 31: 0xFF}},
		"partition-correction": &msg.PartitionCorrection{Frame: 120, Hash: 0xDEADBEEF, Digest: msg.Digest{0xAB, 31: 1}, Buckets: []uint32{3}, Encoding: msg.Zstd, Data: []byte{0x28, 0xB5}},
		"sync-request":         &msg.SyncRequest{What: msg.SyncReliability | msg.SyncClientList},
		"merkle-leaves":        &msg.MerkleLeaves{Frame: 120, Leaves: []msg.Leaf{{Bucket: 0, Hash: 1}, {Bucket: 3, Hash: 0x0102030405060708}}},
		"entity-data":          &msg.EntityData{Frame: 120, Kind: msg.EntitiesFullPart, Part: 0, Parts: 3, Data: []byte{5}},
		"full-state":           &msg.FullState{Frame: 120, Hash: 0xDEADBEEF, Digest: msg.Digest{0xCD}, Part: 2, Parts: 3, Data: []byte{6}},
		"welcome":              &msg.Welcome{Client: 7, Frame: 121, TickHz: 20, Bootstrap: false},
		"entity-request":       &msg.EntityRequest{Frame: 120, Buckets: []uint32{3, 4}},
		"hello":                &msg.Hello{},
		"bye":                  &msg.Bye{},
		"chunk":                &msg.Chunk{Index: 1, Count: 3, Data: []byte{0xEE}},
	}
}

// TestGolden pins every message's bytes. Run with -update after a
// deliberate layout change and review the diff.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden.txt")
	var out strings.Builder
	names := sortedNames()
	for _, name := range names {
		b, err := msg.Append(nil, samples()[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out.WriteString(name + " " + hex.EncodeToString(b) + "\n")
	}
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Fatalf("encodings differ from %s:\n%s", path, out.String())
	}
}

func sortedNames() []string {
	var names []string
	for n := range samples() {
		names = append(names, n)
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if names[j] < names[i] {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	return names
}

// TestStateHashIsNineBytes: the seed's size.
func TestStateHashIsNineBytes(t *testing.T) {
	b, err := msg.Append(nil, &msg.StateHash{Frame: 1, Hash: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x30, 1, 0, 0, 0, 2, 0, 0, 0}
	if !bytes.Equal(b, want) {
		t.Fatalf("% x, want % x", b, want)
	}
}

func TestRoundTrip(t *testing.T) {
	for name, m := range samples() {
		b, err := msg.Append(nil, m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := msg.Parse(b)
		if err != nil {
			t.Fatalf("%s: parse: %v", name, err)
		}
		again, _ := msg.Append(nil, got)
		if !bytes.Equal(again, b) {
			t.Fatalf("%s: re-encoding differs", name)
		}
		for n := range len(b) {
			if _, err := msg.Parse(b[:n]); err == nil {
				t.Fatalf("%s: %d-byte prefix parsed", name, n)
			}
		}
		if _, err := msg.Parse(append(b, 0)); !errors.Is(err, wire.ErrTrailing) {
			t.Fatalf("%s: trailing byte: %v", name, err)
		}
	}
}

func TestStrict(t *testing.T) {
	bad := map[string]msg.Message{
		"unsorted list":      &msg.ClientListUpdate{Version: 1, Clients: []uint32{2, 1}},
		"duplicate client":   &msg.ReliabilityUpdate{Version: 1, Scores: []msg.Score{{Client: 1}, {Client: 1}}},
		"part beyond count":  &msg.PartitionData{Part: 3, Parts: 3},
		"unknown encoding":   &msg.FullState{Parts: 1, Encoding: 2},
		"unknown request":    &msg.Tick{Requests: []msg.Request{{Client: 1, Kind: 9}}},
		"inputs unsorted":    &msg.Tick{Inputs: []msg.ClientInput{{Client: 2}, {Client: 2}}},
		"empty sync request": &msg.SyncRequest{},
		"bucket entity part": &msg.EntityData{Kind: msg.EntitiesBuckets, Parts: 2},
	}
	for name, m := range bad {
		b, err := msg.Append(nil, m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := msg.Parse(b); !errors.Is(err, msg.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := msg.Parse([]byte{0x7F}); !errors.Is(err, msg.ErrUnknownType) {
		t.Errorf("unknown type: %v", err)
	}
}

// TestListCountsBoundAllocation: a list whose count claims more elements
// than the bytes left could hold at the element's smallest encoding is
// refused before anything is allocated for it, for every list-bearing
// message (the count claimed here is one element per byte, which the
// generic one-byte check alone would let through).
func TestListCountsBoundAllocation(t *testing.T) {
	const n = 50_000
	body := func(prefix []byte) []byte {
		b := append([]byte(nil), prefix...)
		b = binary.AppendUvarint(b, n)
		return append(b, make([]byte, n)...)
	}
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	cases := map[string][]byte{
		"merkle leaves":  body(append([]byte{byte(msg.TypeMerkleLeaves)}, u32(1)...)),
		"client list":    body(append([]byte{byte(msg.TypeClientListUpdate)}, u32(1)...)),
		"scores":         body(append([]byte{byte(msg.TypeReliabilityUpdate)}, u32(1)...)),
		"entity request": body(append([]byte{byte(msg.TypeEntityRequest)}, u32(1)...)),
		"tick inputs":    body(append([]byte{byte(msg.TypeTick)}, make([]byte, 15)...)),
	}
	for name, b := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := msg.Parse(b)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: a count of %d in %d bytes parsed", name, n, len(b))
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(b)) {
			t.Errorf("%s: parsing %d bytes allocated %d", name, len(b), got)
		}
	}
}

// FuzzParse: arbitrary bytes never panic, and whatever parses re-encodes
// to exactly the bytes it came from (every value has one encoding).
func FuzzParse(f *testing.F) {
	for _, m := range samples() {
		b, err := msg.Append(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := msg.Parse(b)
		if err != nil {
			return
		}
		again, err := msg.Append(nil, m)
		if err != nil {
			t.Fatalf("re-encode %T: %v", m, err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("%T re-encodes differently:\n% x\n% x", m, b, again)
		}
	})
}

// TestSplitReassemble: a large message split into chunks comes back whole;
// a chunk out of order is refused.
func TestSplitReassemble(t *testing.T) {
	big := &msg.FullState{Frame: 9, Hash: 1, Parts: 1, Data: bytes.Repeat([]byte{7}, 5000)}
	b, _ := msg.Append(nil, big)
	pieces, err := msg.Split(b, 1000)
	if err != nil || len(pieces) < 6 {
		t.Fatalf("%d pieces, %v", len(pieces), err)
	}
	var a msg.Reassembler
	for i, p := range pieces {
		if len(p) > 1000 {
			t.Fatalf("piece of %d bytes", len(p))
		}
		m, err := a.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		if (m != nil) != (i == len(pieces)-1) {
			t.Fatalf("piece %d gave %v", i, m)
		}
		if m != nil {
			again, _ := msg.Append(nil, m)
			if !bytes.Equal(again, b) {
				t.Fatal("reassembled message differs")
			}
		}
	}
	if _, err := a.Parse(pieces[1]); !errors.Is(err, msg.ErrChunks) {
		t.Fatalf("chunk out of order: %v", err)
	}
	small, _ := msg.Append(nil, &msg.StateHash{Frame: 1})
	if got, _ := msg.Split(small, 1000); len(got) != 1 || !bytes.Equal(got[0], small) {
		t.Fatal("a small message was split")
	}
}

// FuzzReassembler: any sequence of link messages never panics, and a
// reassembled message parses as itself.
func FuzzReassembler(f *testing.F) {
	big, _ := msg.Append(nil, &msg.FullState{Frame: 1, Parts: 1, Data: bytes.Repeat([]byte{3}, 300)})
	pieces, _ := msg.Split(big, 100)
	f.Add(bytes.Join(pieces, []byte{0xFF, 0xFF}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a msg.Reassembler
		for piece := range bytes.SplitSeq(b, []byte{0xFF, 0xFF}) {
			m, err := a.Parse(piece)
			if err != nil || m == nil {
				continue
			}
			if _, err := msg.Append(nil, m); err != nil {
				t.Fatalf("reassembled %T does not encode: %v", m, err)
			}
		}
	})
}
