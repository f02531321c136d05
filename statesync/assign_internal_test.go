package statesync

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naivePick is the seed's weightedRandomPickFixed as written: subtract
// weights from the draw until it goes negative, O(n) per draw.
func naivePick(in AssignInput, need int) []uint32 {
	rng := newXorshift128(uint64(in.Frame)<<32 | uint64(in.ListVersion))
	ids := slices.Clone(in.Clients)
	w := make([]uint64, len(ids))
	for i, c := range ids {
		w[i] = uint64(in.Score(c)) + 1
	}
	var out []uint32
	for range need {
		var total uint64
		for _, x := range w {
			total += x
		}
		r := rng.next() % total
		for j := range ids {
			if r < w[j] {
				out = append(out, ids[j])
				ids = slices.Delete(ids, j, j+1)
				w = slices.Delete(w, j, j+1)
				break
			}
			r -= w[j]
		}
	}
	return out
}

// TestWeightedPickMatchesNaive: the Fenwick-tree draw picks exactly what
// the seed's linear scan picks.
func TestWeightedPickMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var s Assigner
	for range 300 {
		n := 1 + rng.IntN(200)
		clients := make([]uint32, n)
		scores := map[uint32]uint16{}
		for i := range clients {
			clients[i] = uint32(i*3 + 1)
			scores[clients[i]] = uint16(rng.IntN(ScoreMax + 1))
		}
		in := AssignInput{Frame: rng.Uint32(), ListVersion: rng.Uint32(), Clients: clients,
			Score: func(c uint32) uint16 { return scores[c] }}
		need := 1 + rng.IntN(n)
		got := s.weightedPick(nil, in, need)
		if want := naivePick(in, need); !slices.Equal(got, want) {
			t.Fatalf("fenwick %v\nnaive   %v", got, want)
		}
	}
}
