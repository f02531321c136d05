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

// FuzzApplyDelta: a hostile delta never panics and never makes the client
// allocate beyond a multiple of what it received.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{0x01, 0xff})
	f.Fuzz(func(t *testing.T, ids, patch []byte) {
		base := []Record{{ID: 1, Data: make([]byte, 12)}, {ID: 3, Data: make([]byte, 12)}}
		var removed []EntityID
		var changed []Record
		for _, b := range ids {
			if b%2 == 0 {
				removed = append(removed, EntityID(b%8))
			} else {
				changed = append(changed, Record{ID: EntityID(b % 8), Data: patch})
			}
		}
		out, arena, err := applyDelta(base, removed, changed, nil, nil)
		if cap(arena) > 2*8*len(patch)*len(changed)+64 { // 8 bytes of record per patch byte, rounded up by append
			t.Fatalf("arena of %d bytes for %d received", cap(arena), len(patch)*len(changed))
		}
		if err == nil && len(out) > len(base)+len(changed) {
			t.Fatal("more records than base and changes")
		}
	})
}
