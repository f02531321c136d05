package predict

import "math"

// Histogram is a distribution of non-negative samples in logarithmic
// buckets about 5% wide, from 1e-4 upwards (bucket 0 holds everything
// smaller, zero included). Quantiles are exact to a bucket's width; the
// mean and maximum are exact. The zero value is empty and ready.
type Histogram struct {
	Counts []uint64 // Counts[i] holds samples in [Bound(i-1), Bound(i))
	N      uint64
	Sum    float64
	Max    float64
}

const (
	histMin    = 1e-4
	histGrowth = 1.05
)

var logGrowth = math.Log(histGrowth)

// Bound is the upper bound of bucket i.
func Bound(i int) float64 { return histMin * math.Pow(histGrowth, float64(i)) }

func bucketOf(v float64) int {
	if !(v >= histMin) { // NaN and tiny values
		return 0
	}
	return min(int(math.Log(v/histMin)/logGrowth)+1, 1000)
}

// Observe adds one sample; negative and NaN samples count as zero.
func (h *Histogram) Observe(v float64) {
	if !(v > 0) {
		v = 0
	}
	b := bucketOf(v)
	if b >= len(h.Counts) {
		h.Counts = append(h.Counts, make([]uint64, b+1-len(h.Counts))...)
	}
	h.Counts[b]++
	h.N++
	h.Sum += v
	h.Max = max(h.Max, v)
}

// Mean is the exact mean, 0 when empty.
func (h *Histogram) Mean() float64 {
	if h.N == 0 {
		return 0
	}
	return h.Sum / float64(h.N)
}

// Quantile returns the upper bound of the bucket holding the q-quantile
// (never above Max), 0 when empty.
func (h *Histogram) Quantile(q float64) float64 {
	if h.N == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.N)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			if i == 0 {
				return 0
			}
			return min(Bound(i), h.Max)
		}
	}
	return h.Max
}

// Merge adds o's samples to h.
func (h *Histogram) Merge(o *Histogram) {
	if len(o.Counts) > len(h.Counts) {
		h.Counts = append(h.Counts, make([]uint64, len(o.Counts)-len(h.Counts))...)
	}
	for i, c := range o.Counts {
		h.Counts[i] += c
	}
	h.N += o.N
	h.Sum += o.Sum
	h.Max = max(h.Max, o.Max)
}
