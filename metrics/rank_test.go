package metrics

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuantileNearestRank: Quantile is the smallest sample with at least
// ceil(q·n) samples at or below it, counted by brute force over random
// slices with repeats, for every whole percentile.
func TestQuantileNearestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		xs := make([]int, 1+rng.IntN(300))
		for i := range xs {
			xs[i] = rng.IntN(50)
		}
		sorted := slices.Sorted(slices.Values(xs))
		for k := 0; k <= 100; k++ {
			want := max((k*len(xs)+99)/100, 1) // ceil(k·n/100) in integers
			var brute int
			for v := range 50 {
				at := 0
				for _, x := range xs {
					if x <= v {
						at++
					}
				}
				if at >= want {
					brute = v
					break
				}
			}
			if got := Quantile(sorted, float64(k)/100); got != brute {
				t.Fatalf("n=%d p%d: got %d, brute force %d", len(xs), k, got, brute)
			}
		}
	}
}

// TestQuantileFigures: the figures the package documentation promises.
func TestQuantileFigures(t *testing.T) {
	upTo := func(n int) []int {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = i + 1
		}
		return xs
	}
	for _, c := range []struct {
		n    int
		q    float64
		want int
	}{{10, 0.5, 5}, {100, 0.99, 99}, {1000, 0.99, 990}, {1000, 0.999, 999}, {100, 0.07, 7}, {5, 0, 1}, {5, 1, 5}, {5, 2, 5}, {5, -1, 1}} {
		if got := Quantile(upTo(c.n), c.q); got != c.want {
			t.Errorf("q=%v of 1..%d: got %d, want %d", c.q, c.n, got, c.want)
		}
	}
	if got := Quantile([]float64(nil), 0.5); got != 0 {
		t.Errorf("empty: %v", got)
	}
	xs := []int{5, 1, 4, 2, 3}
	if got := QuantileOf(xs, 0.5); got != 3 || xs[0] != 5 {
		t.Errorf("QuantileOf: %d, slice now %v", got, xs)
	}
}

// TestQuantileBucket: the bucket of a histogram of counts is the one
// Quantile finds over the samples the counts stand for.
func TestQuantileBucket(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		counts := make([]uint32, 1+rng.IntN(20))
		var xs []int
		for i := range counts {
			if rng.IntN(3) > 0 {
				counts[i] = uint32(rng.IntN(5))
			}
			for range counts[i] {
				xs = append(xs, i)
			}
		}
		for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.99, 1} {
			i, ok := QuantileBucket(counts, q)
			if ok != (len(xs) > 0) || (ok && i != Quantile(xs, q)) {
				t.Fatalf("counts %v q=%v: bucket %d %v, samples say %d", counts, q, i, ok, Quantile(xs, q))
			}
		}
	}
}
