package metrics

import (
	"cmp"
	"math"
	"slices"
)

// rank is the 1-based nearest rank of the q-quantile of n samples:
// ceil(q·n), at least 1 and at most n. q·n is taken 1e-9 below its value
// so that a product like 0.29·100 that floating point computes a hair
// above an integer does not step to the next rank.
func rank(n uint64, q float64) uint64 {
	if !(q > 0) { // NaN too
		return 1
	}
	r := uint64(math.Ceil(q*float64(n) - 1e-9))
	return min(max(r, 1), n)
}

// Quantile is the q-quantile (0..1) of sorted, which must be in ascending
// order, by the nearest-rank method: the smallest sample with at least
// q·n samples at or below it. q ≤ 0 gives the smallest sample, q ≥ 1 the
// largest, an empty slice the zero value.
func Quantile[T cmp.Ordered](sorted []T, q float64) T {
	if len(sorted) == 0 {
		var zero T
		return zero
	}
	return sorted[rank(uint64(len(sorted)), q)-1]
}

// QuantileOf is Quantile over a sorted copy of xs, which it leaves in
// its order: for a report's few quantiles of a slice it does not own.
func QuantileOf[T cmp.Ordered](xs []T, q float64) T {
	return Quantile(slices.Sorted(slices.Values(xs)), q)
}

// Count is a bucket's count in a histogram kept as a slice of counts.
type Count interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint
}

// QuantileBucket is the index of the bucket holding the nearest-rank
// q-quantile of a histogram given by its per-bucket counts (not
// cumulative); ok is false when every count is zero.
func QuantileBucket[C Count](counts []C, q float64) (i int, ok bool) {
	var n uint64
	for _, c := range counts {
		n += uint64(c)
	}
	if n == 0 {
		return 0, false
	}
	r := rank(n, q)
	var seen uint64
	for i, c := range counts {
		seen += uint64(c)
		if seen >= r {
			return i, true
		}
	}
	return len(counts) - 1, true // unreachable: seen reaches n ≥ r
}
