package transport

import (
	"math/rand/v2"
	"testing"
)

// TestEliminateMatchesBruteForce checks the decoder's elimination against
// brute force: for random systems of up to four repairs over one or two
// unknown one-byte symbols (coefficients zero where a repair does not
// cover a message), an unknown is reported determined exactly when every
// assignment of all 256^e values consistent with the repairs agrees on
// it, and then with that value.
func TestEliminateMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	for trial := range 300 {
		e := 1 + rng.IntN(2)
		rows := 1 + rng.IntN(4)
		x := make([]byte, e)
		for i := range x {
			x[i] = byte(rng.Uint32())
		}
		a := make([][]byte, rows)
		rhs := make([]byte, rows)
		for r := range a {
			a[r] = make([]byte, e)
			for c := range a[r] {
				if rng.IntN(3) > 0 {
					a[r][c] = byte(rng.Uint32())
				}
				rhs[r] ^= gfMul(a[r][c], x[c])
			}
		}
		// Brute force: which unknowns do all consistent assignments agree on?
		agree := make([]int, e) // -1: disagree, else the common value
		for i := range agree {
			agree[i] = -2
		}
		for v := range 1 << (8 * e) {
			cand := []byte{byte(v), byte(v >> 8)}[:e]
			ok := true
			for r := range a {
				var s byte
				for c := range cand {
					s ^= gfMul(a[r][c], cand[c])
				}
				if s != rhs[r] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			for c := range cand {
				switch {
				case agree[c] == -2:
					agree[c] = int(cand[c])
				case agree[c] != int(cand[c]):
					agree[c] = -1
				}
			}
		}
		m := make([][]byte, rows)
		for r := range a {
			m[r] = append([]byte(nil), a[r]...)
		}
		comb := gfEliminate(m)
		for c := range e {
			if (comb[c] != nil) != (agree[c] >= 0) {
				t.Fatalf("trial %d: a=%v: unknown %d determined %v, brute force says %v", trial, a, c, comb[c] != nil, agree[c] >= 0)
			}
			if comb[c] == nil {
				continue
			}
			var v byte
			for r, k := range comb[c] {
				v ^= gfMul(k, rhs[r])
			}
			if v != x[c] {
				t.Fatalf("trial %d: unknown %d = %d, want %d", trial, c, v, x[c])
			}
		}
	}
}
