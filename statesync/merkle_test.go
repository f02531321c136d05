package statesync_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tickwire/tickwire/statesync"
)

// TestMerkleFindsCorruptedBuckets: corrupting, deleting or adding entities
// in a copy of a state is localised to exactly the buckets touched, the
// same buckets a brute-force comparison of every bucket finds.
func TestMerkleFindsCorruptedBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 100 {
		a := newTestEngine(200 + rng.IntN(800))
		for f := uint32(1); f <= 60; f++ {
			a.Step(f, nil)
		}
		b := newTestEngine(0)
		if err := statesync.ApplyFullState(b, statesync.FullState(nil, a)); err != nil {
			t.Fatal(err)
		}
		all := ids(a)
		touched := map[uint32]bool{}
		for range 1 + rng.IntN(3) {
			id := all[1+rng.IntN(len(all)-1)]
			switch rng.IntN(3) {
			case 0:
				b.corrupt(id)
			case 1:
				b.RemoveEntity(id)
			case 2:
				id = all[len(all)-1] + 1 + uint32(rng.IntN(100))
				b.SetEntity(id, make([]byte, 17))
			}
			touched[statesync.BucketOf(id)] = true
		}
		la, _ := statesync.Leaves(nil, a, nil)
		lb, _ := statesync.Leaves(nil, b, nil)
		got, visited := statesync.Divergent(nil, statesync.NewMerkleTree(la), statesync.NewMerkleTree(lb))
		var want []uint32
		for bk := range touched {
			want = append(want, bk)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: divergent %v, touched %v", trial, got, want)
		}
		if len(la) == len(lb) && len(want) == 1 && visited > 2*bitsLen(len(la))+1 {
			t.Fatalf("trial %d: one divergent leaf of %d took %d node visits", trial, len(la), visited)
		}
	}
}

func bitsLen(n int) int {
	k := 0
	for n > 0 {
		k++
		n >>= 1
	}
	return k
}

func TestMerkleLeavesHoldAtMost16(t *testing.T) {
	a := newTestEngine(1000)
	for f := uint32(1); f <= 10; f++ {
		a.Step(f, nil)
	}
	count := map[uint32]int{}
	for id := range a.Entities() {
		count[statesync.BucketOf(id)]++
	}
	for b, n := range count {
		if n > statesync.LeafSize {
			t.Fatalf("bucket %d holds %d entities", b, n)
		}
	}
}
