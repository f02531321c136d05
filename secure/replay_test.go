package secure

import (
	"math/rand/v2"
	"testing"
)

// The bitmap window agrees with a brute-force model (a set of every
// sequence seen and the highest one) on random traffic with jumps,
// duplicates and stragglers.
func TestReplayWindowMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		var w replayWindow
		seen := map[uint64]bool{}
		var top uint64
		any := false
		next := uint64(rng.IntN(1 << 20))
		for range 5000 {
			var seq uint64
			switch r := rng.IntN(10); {
			case r < 5:
				next += uint64(rng.IntN(3))
				seq = next
			case r < 7:
				next += uint64(rng.IntN(3 * ReplayWindow))
				seq = next
			default:
				seq = next - min(next, uint64(rng.IntN(2*ReplayWindow)))
			}
			want := !seen[seq] && (!any || seq > top || top-seq < ReplayWindow)
			if got := w.fresh(seq); got != want {
				t.Fatalf("trial %d: fresh(%d) = %v, model %v (top %d)", trial, seq, got, want, top)
			}
			if want {
				w.mark(seq)
				seen[seq] = true
				if !any || seq > top {
					top, any = seq, true
				}
			}
		}
	}
}
