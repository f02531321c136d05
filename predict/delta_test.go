package predict

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// randomRecords returns ascending records of 12 bytes, ids from a small
// range so that two draws overlap.
func randomRecords(rng *rand.Rand) []Record {
	var out []Record
	for id := EntityID(-5); id < 40; id++ {
		if rng.IntN(3) == 0 {
			continue
		}
		d := make([]byte, 12)
		for k := range d {
			if rng.IntN(4) == 0 {
				d[k] = byte(rng.IntN(3))
			}
		}
		out = append(out, Record{ID: id, Data: d})
	}
	return out
}

// TestDeltaProperty: applying the delta of (base, cur) to base gives cur
// exactly, record for record, for random pairs.
func TestDeltaProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		base, cur := randomRecords(rng), randomRecords(rng)
		removed, changed, _ := diffRecords(base, cur, nil, nil, nil)
		got, _, err := applyDelta(base, removed, changed, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(cur) {
			t.Fatalf("%d records, want %d", len(got), len(cur))
		}
		for i := range cur {
			if got[i].ID != cur[i].ID || !bytes.Equal(got[i].Data, cur[i].Data) {
				t.Fatalf("record %d: %v, want %v", i, got[i], cur[i])
			}
		}
	}
}

// FuzzApplyDelta: a hostile delta snapshot, decoded and applied to a
// baseline, never panics, never makes the client allocate beyond a
// multiple of what it received, and when it is accepted the server's
// encoder, diffing the baseline and the result, writes back exactly the
// bytes received: a patch has one accepted form (no XOR of zero, no
// record "changed" to itself). Seeded from the encoder's deltas.
func FuzzApplyDelta(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := randomRecords(rng)
	for range 8 {
		removed, changed, _ := diffRecords(base, randomRecords(rng), nil, nil, nil)
		b, _ := (&SnapshotMessage{ServerTick: 9, BaselineTick: 8, Header: []byte{1}, Removed: removed, Records: changed}).Append(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m SnapshotMessage
		if m.Parse(b) != nil || m.BaselineTick == 0 {
			return
		}
		received := 0
		for _, r := range m.Records {
			received += len(r.Data)
		}
		out, arena, err := applyDelta(base, m.Removed, m.Records, nil, nil)
		if cap(arena) > 2*8*received+64 { // 8 bytes of record per patch byte, rounded up by append
			t.Fatalf("arena of %d bytes for %d received", cap(arena), received)
		}
		if err != nil {
			return
		}
		if len(out) > len(base)+len(m.Records) {
			t.Fatal("more records than base and changes")
		}
		again := m
		again.Removed, again.Records, _ = diffRecords(base, out, nil, nil, nil)
		enc, err := again.Append(nil)
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("accepted delta % x\nre-encodes to   % x (%v)", b, enc, err)
		}
	})
}
