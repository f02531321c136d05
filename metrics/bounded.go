package metrics

import (
	"math"
	"slices"
	"sync/atomic"
)

// Bounded is a histogram over upper bounds the caller chooses, as a
// Prometheus histogram has: an observation v is counted in the first
// bucket whose bound is at least v, or in the implicit +Inf bucket.
// Observe is safe for concurrent use and never allocates; Snapshot may
// run at the same time. A zero Bounded has no bound: it counts and sums.
type Bounded struct {
	bounds []float64       // ascending; never modified
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	n      atomic.Uint64
	sum    atomic.Uint64 // float64 bits
}

// NewBounded returns a histogram over bounds, which must be ascending
// and finite; it panics if they are not (a programming error).
func NewBounded(bounds ...float64) *Bounded {
	for i, b := range bounds {
		if math.IsNaN(b) || math.IsInf(b, 0) || (i > 0 && b <= bounds[i-1]) {
			panic("metrics: bounds must be finite and ascending")
		}
	}
	return &Bounded{bounds: slices.Clone(bounds), counts: make([]atomic.Uint64, len(bounds)+1)}
}

// Observe counts v; a NaN is ignored.
func (b *Bounded) Observe(v float64) {
	if math.IsNaN(v) {
		return
	}
	if b.counts != nil {
		i, _ := slices.BinarySearch(b.bounds, v) // the first bound ≥ v
		b.counts[i].Add(1)
	}
	b.n.Add(1)
	for {
		old := b.sum.Load()
		if b.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Snapshot returns the observations so far. Under concurrent Observe, a
// count may include an observation the others do not yet.
func (b *Bounded) Snapshot() Cumulative {
	c := Cumulative{Bounds: slices.Clone(b.bounds), Counts: make([]uint64, len(b.bounds))}
	var run uint64
	for i := range b.bounds {
		run += b.counts[i].Load()
		c.Counts[i] = run
	}
	c.Count = b.n.Load()
	c.Sum = math.Float64frombits(b.sum.Load())
	return c
}

// Cumulative is a snapshot of a Bounded, in Prometheus's shape:
// Counts[i] observations were at most Bounds[i]; Count and Sum are over
// every observation (the +Inf bucket is Count).
type Cumulative struct {
	Bounds []float64
	Counts []uint64
	Count  uint64
	Sum    float64
}

// Sub is the observations of c made since prev, an earlier snapshot of
// the same histogram.
func (c Cumulative) Sub(prev Cumulative) Cumulative {
	out := Cumulative{Bounds: c.Bounds, Counts: slices.Clone(c.Counts), Count: c.Count - prev.Count, Sum: c.Sum - prev.Sum}
	for i := range min(len(out.Counts), len(prev.Counts)) {
		out.Counts[i] -= prev.Counts[i]
	}
	return out
}

// Quantile estimates the q-quantile (0..1) by linear interpolation
// within the bucket holding rank q·Count, as Prometheus's
// histogram_quantile does, so that it reads as a dashboard computes it
// from the same buckets; from the +Inf bucket it returns the last bound.
// It is 0 without observations.
//
// This is the one quantile of the package that interpolates: a Bounded's
// buckets are few and wide (each bound 1.3 to 2.5 times the one before
// for the server's broadcast lateness), and their upper bound would read
// a tail as the next bucket's bound.
func (c Cumulative) Quantile(q float64) float64 {
	if c.Count == 0 || len(c.Bounds) == 0 {
		return 0
	}
	r := q * float64(c.Count)
	lower, below := 0.0, uint64(0)
	for i, n := range c.Counts {
		if float64(n) >= r && n > below {
			return lower + (r-float64(below))/float64(n-below)*(c.Bounds[i]-lower)
		}
		lower, below = c.Bounds[i], n
	}
	return c.Bounds[len(c.Bounds)-1]
}
