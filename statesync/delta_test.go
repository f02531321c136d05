package statesync_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tickwire/tickwire/statesync"
)

// ids returns the engine's entity ids.
func ids(e statesync.Engine) []uint32 {
	var out []uint32
	for id := range e.Entities() {
		out = append(out, id)
	}
	return out
}

// TestDeltaTrackerMatchesSetDifference: the tracker's created and deleted
// ids are the set differences of consecutive states, and applying every
// delta's structure to a copy reproduces the id set.
func TestDeltaTrackerMatchesSetDifference(t *testing.T) {
	e := newTestEngine(200)
	var tr statesync.DeltaTracker
	var h statesync.Hasher
	base, _ := h.StateHash(e)
	shadow := map[uint32]bool{}
	for id := range e.Entities() {
		shadow[id] = true
	}
	tr.Reset(e)
	for f := uint32(1); f <= 300; f++ {
		before := ids(e)
		e.Step(f, nil)
		after := ids(e)
		result, _ := h.StateHash(e)
		d := tr.Compute(f, base, result, e, nil)
		base = result
		var created []uint32
		ents, err := statesync.ParseEntities(d.Created)
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range ents {
			created = append(created, en.ID)
		}
		var wantCreated, wantDeleted []uint32
		for _, id := range after {
			if !slices.Contains(before, id) {
				wantCreated = append(wantCreated, id)
			}
		}
		for _, id := range before {
			if !slices.Contains(after, id) {
				wantDeleted = append(wantDeleted, id)
			}
		}
		if !slices.Equal(created, wantCreated) || !slices.Equal(d.Deleted, wantDeleted) {
			t.Fatalf("frame %d: created %v deleted %v, want %v %v", f, created, d.Deleted, wantCreated, wantDeleted)
		}
		for _, id := range d.Deleted {
			delete(shadow, id)
		}
		for _, id := range created {
			shadow[id] = true
		}
		if len(shadow) != len(after) {
			t.Fatalf("frame %d: replayed structure has %d entities, state %d", f, len(shadow), len(after))
		}
	}
}

// TestPartitionsAssembleToWhole: any partition count splits a delta into
// pieces that assemble, in any order, to the whole delta's bytes.
func TestPartitionsAssembleToWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	e := newTestEngine(400)
	var tr statesync.DeltaTracker
	for f := uint32(1); f <= 50; f++ {
		e.Step(f, nil)
		d := tr.Compute(f, f*7, f*11, e, nil)
		whole := statesync.AppendDelta(nil, &d)
		parts := uint16(1 + rng.IntN(40))
		var pieces []statesync.Delta
		for p := range parts {
			b := statesync.PartitionDelta(nil, &d, p, parts)
			pd, err := statesync.ParseDelta(b)
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, pd)
		}
		rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
		got, err := statesync.AssembleDelta(nil, pieces)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole) {
			t.Fatalf("frame %d: %d partitions assemble to a different delta", f, parts)
		}
	}
}

func TestEmptyDeltaIs14Bytes(t *testing.T) {
	if n := len(statesync.AppendDelta(nil, &statesync.Delta{Frame: 1})); n != 14 {
		t.Fatalf("empty delta %d bytes", n)
	}
}

func TestAssembleRejectsMixedFrames(t *testing.T) {
	_, err := statesync.AssembleDelta(nil, []statesync.Delta{{Frame: 1}, {Frame: 2}})
	if !errors.Is(err, statesync.ErrMalformed) {
		t.Fatalf("%v", err)
	}
}

// TestFullStateRoundTrip: a state written as partitions, merged and
// applied to a fresh engine hashes the same.
func TestFullStateRoundTrip(t *testing.T) {
	e := newTestEngine(300)
	for f := uint32(1); f <= 100; f++ {
		e.Step(f, nil)
	}
	var h statesync.Hasher
	want, n := h.StateHash(e)
	var sets [][]byte
	for p := range uint16(7) {
		sets = append(sets, statesync.FullStatePartition(nil, e, p, 7))
	}
	merged, err := statesync.MergeEntitySets(nil, sets)
	if err != nil {
		t.Fatal(err)
	}
	if statesync.HashBytes(merged) != want {
		t.Fatal("merged partitions hash differently from the state")
	}
	fresh := newTestEngine(300)
	if err := statesync.ApplyFullState(fresh, merged); err != nil {
		t.Fatal(err)
	}
	if got, m := h.StateHash(fresh); got != want || m != n {
		t.Fatalf("applied state hash %08x (%d entities), want %08x (%d)", got, m, want, n)
	}
}

func FuzzParseDelta(f *testing.F) {
	e := newTestEngine(50)
	var tr statesync.DeltaTracker
	for fr := uint32(1); fr <= 8; fr++ {
		e.Step(fr, nil)
		d := tr.Compute(fr, 1, 2, e, nil)
		f.Add(statesync.AppendDelta(nil, &d))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := statesync.ParseDelta(b)
		if err != nil {
			return
		}
		if again := statesync.AppendDelta(nil, &d); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs")
		}
	})
}

func FuzzEntitySet(f *testing.F) {
	e := newTestEngine(50)
	e.Step(1, nil)
	f.Add(statesync.FullState(nil, e))
	f.Fuzz(func(t *testing.T, b []byte) {
		ents, err := statesync.ParseEntities(b)
		if err != nil {
			return
		}
		var again []byte
		for _, en := range ents {
			again = statesync.AppendEntity(again, en.ID, en.Data)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs")
		}
	})
}
