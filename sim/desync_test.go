package sim

import (
	"errors"
	"slices"
	"testing"
)

// TestInjectFaultShowsInOneLeaf sweeps every fault field over entities of
// every leaf: the fault changes exactly the entity's Merkle leaf, and
// SnapshotLeaf of that leaf differs in exactly that entity and field.
func TestInjectFaultShowsInOneLeaf(t *testing.T) {
	a := newTestSim(t)
	runFight(t, a, 60)
	for k := 0; k < len(a.states); k += 1 + len(a.states)/12 {
		for _, field := range FaultFields {
			b := newTestSim(t)
			if err := b.Restore(a.Snapshot()); err != nil {
				t.Fatal(err)
			}
			e := b.states[k]
			if err := b.InjectFault(e.ID, field); err != nil {
				t.Fatal(err)
			}
			leaf := leafOf(e.Owner, CategoryOf(&e))
			if d := DiffTrees(a.MerkleTree(), b.MerkleTree()); !slices.Equal(d, []int{leaf}) {
				t.Fatalf("entity %d %s: leaves %v differ, want [%d]", e.ID, field, d, leaf)
			}
			_, names, ea, err := SnapshotLeaf(a.Snapshot(), leaf)
			if err != nil {
				t.Fatal(err)
			}
			_, _, eb, err := SnapshotLeaf(b.Snapshot(), leaf)
			if err != nil {
				t.Fatalf("the corrupted state does not snapshot: %v", err)
			}
			var diffs []string
			for i := range ea {
				if ea[i].ID != eb[i].ID {
					t.Fatalf("entity order differs")
				}
				for f := range names {
					if ea[i].Values[f] != eb[i].Values[f] {
						diffs = append(diffs, names[f])
						if ea[i].ID != e.ID {
							t.Errorf("entity %d %s: entity %d differs", e.ID, field, ea[i].ID)
						}
					}
				}
			}
			if !slices.Equal(diffs, []string{field}) {
				t.Errorf("entity %d %s: fields %v differ", e.ID, field, diffs)
			}
		}
	}
	if err := a.InjectFault(0, "health"); err == nil {
		t.Error("a fault in no entity injected")
	}
	if err := a.InjectFault(a.states[0].ID, "pos.x"); err == nil {
		t.Error("a fault in an unsupported field injected")
	}
}

// TestSnapshotLeafPartitions checks that the leaves hold every entity
// once, each in the leaf its owner and category name, and that the world
// leaf carries the RNG.
func TestSnapshotLeafPartitions(t *testing.T) {
	s := newTestSim(t)
	runFight(t, s, 40)
	snap := s.Snapshot()
	seen := 0
	for i := range leafCount(s.players) {
		label, names, ents, err := SnapshotLeaf(snap, i)
		if err != nil {
			t.Fatal(err)
		}
		if label != leafLabel(i) {
			t.Errorf("leaf %d: label %v", i, label)
		}
		if i == 0 {
			if len(ents) != 1 || names[1] != "rng" || uint64(ents[0].Values[1]) != s.RNGState() {
				t.Errorf("world leaf %v %v", names, ents)
			}
			continue
		}
		for _, e := range ents {
			st, _ := s.EntityState(e.ID)
			if leafOf(st.Owner, CategoryOf(&st)) != i {
				t.Errorf("entity %d in leaf %d", e.ID, i)
			}
		}
		seen += len(ents)
	}
	if seen != len(s.states) {
		t.Errorf("%d entities in the leaves, %d in the state", seen, len(s.states))
	}
	if _, _, _, err := SnapshotLeaf(snap, leafCount(s.players)); err == nil {
		t.Error("a leaf past the last read")
	}
}

// TestCheckCaches: a fight's flow fields check out; one damaged cell of
// one cached field is caught.
func TestCheckCaches(t *testing.T) {
	s := newTestSim(t)
	runFight(t, s, 80)
	// Units detour around obstacles with flow fields; ask for two.
	s.paths.waypoint(s.states[0].Pos, s.states[len(s.states)-1].Pos)
	s.paths.waypoint(s.states[len(s.states)-1].Pos, s.states[0].Pos)
	if err := s.CheckCaches(); err != nil {
		t.Fatal(err)
	}
	if len(s.paths.ring) == 0 {
		t.Fatal("no flow field cached")
	}
	s.paths.fields[s.paths.ring[0]].dist[0] ^= 1
	if err := s.CheckCaches(); !errors.Is(err, ErrCacheMismatch) {
		t.Fatalf("damaged flow field: %v", err)
	}
}
