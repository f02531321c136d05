package transport

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAckVectorMatchesBruteForce compares the ack vector with a set of all
// received sequences, across the 32-bit wrap.
func TestAckVectorMatchesBruteForce(t *testing.T) {
	for _, start := range []uint32{0, 1 << 31, 0xFFFFFF00} {
		rng := rand.New(rand.NewPCG(uint64(start), 7))
		var a ackVector
		seen := map[uint32]bool{}
		var latest uint32
		have := false
		next := start
		for range 5000 {
			// Mostly increasing, with reordering, duplicates and gaps.
			var s uint32
			switch r := rng.IntN(10); {
			case r < 6:
				s = next
				next++
			case r < 8:
				s = next - uint32(rng.IntN(80))
			default:
				next += uint32(rng.IntN(100))
				s = next
			}
			st := a.status(s)
			var want recvStatus
			switch {
			case !have || seqDiff32(s, latest) > 0:
				want = recvNew
			case seqDiff32(latest, s) >= ackVectorBits:
				want = recvTooOld
			case seen[s]:
				want = recvDuplicate
			default:
				want = recvNew
			}
			if st != want {
				t.Fatalf("start %#x: status(%#x) = %d, want %d", start, s, st, want)
			}
			if st == recvNew {
				a.mark(s, time.Time{})
				seen[s] = true
				if !have || seqDiff32(s, latest) > 0 {
					latest, have = s, true
				}
			}
			if a.latest != latest {
				t.Fatalf("latest = %#x, want %#x", a.latest, latest)
			}
			for n := range uint32(ackVectorBits) {
				if got := a.mask&(1<<n) != 0; got != seen[latest-n] {
					t.Fatalf("bit %d (seq %#x) = %v, want %v", n, latest-n, got, seen[latest-n])
				}
			}
		}
	}
}
