package metrics

import (
	"iter"
	"math"
)

// The buckets of a Histogram: bucket 0 holds zero (and negative and NaN
// samples); bucket 1 the positive samples below 2^minExp; then every
// octave [2^e, 2^(e+1)) for minExp ≤ e < maxExp is cut into subBuckets
// equal parts; the last bucket holds 2^maxExp and above.
const (
	subBuckets = 32
	minExp     = -24 // 2^-24 ≈ 6.0e-8
	maxExp     = 24  // 2^24 ≈ 1.7e7
	numBuckets = 2 + (maxExp-minExp)*subBuckets + 1

	// Width is the largest relative width of a bucket between 2^-24 and
	// 2^24: a quantile read from a Histogram is at most Width above the
	// exact one there.
	Width = 1.0 / subBuckets
)

// Histogram is a distribution of non-negative samples in fixed
// log-linear buckets: each power of two between 2^-24 (≈ 6e-8) and 2^24
// (≈ 1.7e7) is cut into 32 equal buckets, so a bucket is at most 3.125%
// (Width) as wide as its values. Quantiles are those of the nearest rank,
// read as the upper bound of the bucket holding it, never above the
// largest sample: between the two powers they are at most Width above the
// exact figure, and never below it. Count, Sum, Mean and Max are exact.
//
// The zero value is empty and ready; Observe never allocates. A Histogram
// is a value (about 12 KiB): copying it copies its counts. It is not safe
// for concurrent use.
type Histogram struct {
	counts [numBuckets]uint64
	n      uint64
	sum    float64
	max    float64
}

// bucketOf is the index of the bucket holding v.
func bucketOf(v float64) int {
	switch {
	case !(v > 0): // NaN too
		return 0
	case v < 0x1p-24:
		return 1
	case v >= 0x1p24:
		return numBuckets - 1
	}
	frac, exp := math.Frexp(v) // v = frac·2^exp, frac in [0.5, 1): exact
	octave := exp - 1 - minExp
	sub := int((2*frac - 1) * subBuckets) // exact: a power of two times frac
	return 2 + octave*subBuckets + sub
}

// upperBound is the bound every sample of bucket i is below (bucket 0:
// at most).
func upperBound(i int) float64 {
	switch {
	case i == 0:
		return 0
	case i == 1:
		return 0x1p-24
	case i >= numBuckets-1:
		return math.Inf(1)
	}
	i -= 2
	return math.Ldexp(1+float64(i%subBuckets+1)/subBuckets, i/subBuckets+minExp)
}

// Observe adds one sample; negative and NaN samples count as zero, +Inf
// as the largest float64.
func (h *Histogram) Observe(v float64) {
	if !(v > 0) {
		v = 0
	}
	v = min(v, math.MaxFloat64)
	h.counts[bucketOf(v)]++
	h.n++
	h.sum += v
	h.max = max(h.max, v)
}

// Count is the number of samples.
func (h *Histogram) Count() uint64 { return h.n }

// Sum is the exact sum of the samples.
func (h *Histogram) Sum() float64 { return h.sum }

// Max is the largest sample, 0 when empty.
func (h *Histogram) Max() float64 { return h.max }

// Mean is the exact mean, 0 when empty.
func (h *Histogram) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// Quantile is the q-quantile (0..1) by nearest rank, read as the upper
// bound of the bucket holding it and at most Max: 0 when empty.
func (h *Histogram) Quantile(q float64) float64 {
	i, ok := QuantileBucket(h.counts[:], q)
	if !ok {
		return 0
	}
	return min(upperBound(i), h.max)
}

// Buckets yields the non-empty buckets in ascending order: every sample
// counted in a bucket is at most its bound and at least the previous
// bucket's bound. A bound is never above Max (the last bucket's is Max);
// the bucket of zeros has bound 0.
func (h *Histogram) Buckets() iter.Seq2[float64, uint64] {
	return func(yield func(le float64, count uint64) bool) {
		for i, c := range h.counts {
			if c != 0 && !yield(min(upperBound(i), h.max), c) {
				return
			}
		}
	}
}

// Merge adds o's samples to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}
