package sim

import (
	"slices"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

func TestMerkleRootIsStateHash(t *testing.T) {
	s := newTestSim(t)
	runFight(t, s, 50)
	tree := s.MerkleTree()
	if tree.Root() != s.StateHash() {
		t.Fatalf("root %x != state hash %x", tree.Root(), s.StateHash())
	}
	if tree.Leaves() != leafCount(2) {
		t.Fatalf("%d leaves, want %d", tree.Leaves(), leafCount(2))
	}
	for i := range tree.Leaves() {
		_, h := tree.Leaf(i)
		path := tree.ProofPath(i)
		if !VerifyProof(tree.Root(), i, h, path) {
			t.Errorf("leaf %d: proof does not verify", i)
		}
		if VerifyProof(tree.Root(), i, h^1, path) {
			t.Errorf("leaf %d: proof verifies a wrong leaf hash", i)
		}
	}
}

// TestMerkleLocalisesCorruption corrupts one entity of a copy and checks
// that comparing the trees names exactly that entity's leaf, and Diff
// exactly that field.
func TestMerkleLocalisesCorruption(t *testing.T) {
	a := newTestSim(t)
	runFight(t, a, 80)
	b := newTestSim(t)
	if err := b.Restore(a.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if d := DiffTrees(a.MerkleTree(), b.MerkleTree()); len(d) != 0 {
		t.Fatalf("identical states differ in leaves %v", d)
	}
	for i, e := range b.states {
		b.states[i].Health--
		want := leafOf(e.Owner, CategoryOf(&e))
		got := DiffTrees(a.MerkleTree(), b.MerkleTree())
		if !slices.Equal(got, []int{want}) {
			t.Fatalf("entity %d (%s): differing leaves %v, want [%d]", e.ID, leafLabel(want), got, want)
		}
		diffs, err := Diff(a.Snapshot(), b.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) != 1 || diffs[0].Entity != e.ID || diffs[0].Field != "health" || diffs[0].B != diffs[0].A-1 {
			t.Fatalf("entity %d: Diff = %v", e.ID, diffs)
		}
		b.states[i].Health++
	}
	// The world leaf holds the RNG.
	b.rng.state++
	if got := DiffTrees(a.MerkleTree(), b.MerkleTree()); !slices.Equal(got, []int{0}) {
		t.Fatalf("RNG change: differing leaves %v, want [0]", got)
	}
}

func TestLeafLabels(t *testing.T) {
	for owner := 1; owner <= 5; owner++ {
		for _, c := range []Category{CategoryUnit, CategoryStructure} {
			l := leafLabel(leafOf(protocol.PlayerID(owner), c))
			if l.World || int(l.Owner) != owner || l.Category != c {
				t.Errorf("owner %d %s: label %+v", owner, c, l)
			}
		}
	}
	if got := leafLabel(leafOf(Neutral, CategoryDecoration)).String(); got != "neutral decoration" {
		t.Errorf("label %q", got)
	}
}
