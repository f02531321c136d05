package metrics

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBucketBounds: over every bucket, the lower bound (the previous
// bucket's upper bound) falls in it, the largest float below its upper
// bound too, and the upper bound in the next one; no bucket is wider than
// Width of its lower bound.
func TestBucketBounds(t *testing.T) {
	if bucketOf(0) != 0 || bucketOf(-1) != 0 || bucketOf(math.NaN()) != 0 || bucketOf(math.SmallestNonzeroFloat64) != 1 || bucketOf(math.Inf(1)) != numBuckets-1 {
		t.Fatal("special values in the wrong bucket")
	}
	for i := 2; i < numBuckets-1; i++ {
		lo, hi := upperBound(i-1), upperBound(i)
		if bucketOf(lo) != i || bucketOf(math.Nextafter(hi, 0)) != i || bucketOf(hi) != i+1 {
			t.Fatalf("bucket %d [%g, %g): %d %d %d", i, lo, hi, bucketOf(lo), bucketOf(math.Nextafter(hi, 0)), bucketOf(hi))
		}
		if hi > lo*(1+Width) {
			t.Fatalf("bucket %d [%g, %g) wider than Width", i, lo, hi)
		}
	}
	if upperBound(numBuckets-2) != 0x1p24 {
		t.Fatalf("last finite bound %g", upperBound(numBuckets-2))
	}
}

// randomSamples draws n samples: mostly log-uniform over the histogram's
// range, some zeros, some below and some above the range, some repeated.
func randomSamples(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		switch k := rng.IntN(20); {
		case k == 0:
			xs[i] = 0
		case k == 1:
			xs[i] = rng.Float64() * 0x1p-24
		case k == 2:
			xs[i] = 0x1p24 * (1 + 100*rng.Float64())
		case k == 3 && i > 0:
			xs[i] = xs[rng.IntN(i)]
		default:
			xs[i] = math.Ldexp(1+rng.Float64(), minExp+rng.IntN(maxExp-minExp))
		}
	}
	return xs
}

// TestHistogramQuantileBrute: against a brute-force sort of random
// samples, every quantile of the histogram is at least the exact
// nearest-rank one and at most Width above it (at most the range's
// smallest bound below the range, at most the largest sample above it);
// count, sum, mean and max are exact; the buckets account for every sample.
func TestHistogramQuantileBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		xs := randomSamples(rng, 1+rng.IntN(2000))
		var h Histogram
		var sum float64
		for _, x := range xs {
			h.Observe(x)
			sum += x
		}
		sorted := slices.Sorted(slices.Values(xs))
		for _, q := range []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1, rng.Float64()} {
			exact, got := Quantile(sorted, q), h.Quantile(q)
			limit := exact * (1 + Width)
			switch {
			case exact < 0x1p-24:
				limit = 0x1p-24
			case exact >= 0x1p24:
				limit = sorted[len(sorted)-1]
			}
			if exact == 0 {
				limit = 0
			}
			if got < exact || got > limit {
				t.Fatalf("round %d n=%d q=%v: histogram %g, exact %g (limit %g)", round, len(xs), q, got, exact, limit)
			}
		}
		if h.Count() != uint64(len(xs)) || h.Sum() != sum || h.Max() != sorted[len(sorted)-1] || h.Mean() != sum/float64(len(xs)) {
			t.Fatalf("round %d: count %d sum %g max %g mean %g", round, h.Count(), h.Sum(), h.Max(), h.Mean())
		}
		var total uint64
		prev := -1.0
		at := 0 // samples at or below the bucket's bound
		for le, c := range h.Buckets() {
			if le <= prev && !(prev == 0 && le == 0 && total == 0) {
				t.Fatalf("round %d: bounds not ascending: %g after %g", round, le, prev)
			}
			total += c
			for at < len(sorted) && sorted[at] <= le {
				at++
			}
			if uint64(at) < total {
				t.Fatalf("round %d: %d samples counted at most %g, only %d are", round, total, le, at)
			}
			prev = le
		}
		if total != h.Count() || prev != h.Max() {
			t.Fatalf("round %d: buckets hold %d of %d samples, last bound %g, max %g", round, total, h.Count(), prev, h.Max())
		}
	}
}

// TestHistogramOddSamples: negative and NaN samples count as zero, +Inf
// as the largest float64; an empty histogram reads 0 everywhere.
func TestHistogramOddSamples(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Mean() != 0 || h.Max() != 0 {
		t.Fatal("empty histogram reads non-zero")
	}
	for range h.Buckets() {
		t.Fatal("empty histogram has a bucket")
	}
	h.Observe(-3)
	h.Observe(math.NaN())
	if h.Count() != 2 || h.Sum() != 0 || h.Quantile(1) != 0 {
		t.Fatalf("count %d sum %g p100 %g", h.Count(), h.Sum(), h.Quantile(1))
	}
	h.Observe(math.Inf(1))
	if h.Max() != math.MaxFloat64 || h.Quantile(1) != math.MaxFloat64 {
		t.Fatalf("max %g p100 %g", h.Max(), h.Quantile(1))
	}
}

// TestHistogramObserveAllocates: Observe allocates nothing.
func TestHistogramObserveAllocates(t *testing.T) {
	h := new(Histogram)
	v := 0.0
	if n := testing.AllocsPerRun(1000, func() { v += 0.37; h.Observe(v) }); n != 0 {
		t.Fatalf("Observe allocates %v times", n)
	}
}

// mergeHolds checks that merging the histograms of xs[:cut] and xs[cut:]
// gives the histogram of xs: the same buckets, count, max and quantiles,
// the sum up to rounding.
func mergeHolds(t *testing.T, xs []float64, cut int) {
	t.Helper()
	var a, b, all Histogram
	for i, x := range xs {
		if i < cut {
			a.Observe(x)
		} else {
			b.Observe(x)
		}
		all.Observe(x)
	}
	a.Merge(&b)
	if a.counts != all.counts || a.n != all.n || a.max != all.max || !sameSum(a.sum, all.sum) {
		t.Fatalf("merged %d+%d samples differ from one histogram: n %d/%d max %g/%g sum %g/%g",
			cut, len(xs)-cut, a.n, all.n, a.max, all.max, a.sum, all.sum)
	}
	for _, q := range []float64{0.5, 0.99} {
		if a.Quantile(q) != all.Quantile(q) {
			t.Fatalf("merged p%v %g, one histogram %g", q*100, a.Quantile(q), all.Quantile(q))
		}
	}
}

// sameSum reports whether two sums of the same samples in another order
// agree up to rounding (or both overflowed).
func sameSum(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Abs(b) || (math.IsInf(a, 0) && math.IsInf(b, 0))
}

// TestHistogramMerge: merging equals observing every sample in one
// histogram, for random samples and cuts.
func TestHistogramMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		xs := randomSamples(rng, rng.IntN(500))
		mergeHolds(t, xs, rng.IntN(len(xs)+1))
	}
}

// FuzzHistogramMerge: the same for any samples (8 bytes each, as float64
// bits) and any cut.
func FuzzHistogramMerge(f *testing.F) {
	seed := func(cut uint8, xs ...float64) {
		b := []byte{cut}
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		f.Add(b)
	}
	seed(1, 0, 1, 2.5, 1e-9, 3e7)
	seed(2, math.NaN(), math.Inf(1), -1, 0x1p24, 0x1p-24)
	seed(0)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		xs := make([]float64, 0, len(b)/8)
		for rest := b[1:]; len(rest) >= 8; rest = rest[8:] {
			xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(rest)))
		}
		mergeHolds(t, xs, int(b[0])%(len(xs)+1))
	})
}
