package lockstepbot

import (
	"math"
	"time"
)

// histogram summarises durations in logarithmic buckets, each histGrowth
// times wider than the one before, so a bot's memory does not grow with
// the length of its match and a percentile is within 2% of the exact one.
// Durations below histMin share the first bucket, above histMax the last.
type histogram struct {
	counts [histBuckets]uint32
	n      uint64
}

const (
	histMin     = time.Microsecond
	histMax     = 1000 * time.Second
	histGrowth  = 1.02
	histBuckets = 1048 // ceil(log(histMax/histMin) / log(histGrowth)) + 1
)

func histBucket(d time.Duration) int {
	if d <= histMin {
		return 0
	}
	i := int(math.Ceil(math.Log(float64(d)/float64(histMin)) / math.Log(histGrowth)))
	if histValue(i) < d { // rounding: a bucket's bound is never below its values
		i++
	}
	return min(i, histBuckets-1)
}

// histValue is the upper bound of bucket i.
func histValue(i int) time.Duration {
	return time.Duration(float64(histMin) * math.Pow(histGrowth, float64(i)))
}

func (h *histogram) add(d time.Duration) {
	h.counts[histBucket(d)]++
	h.n++
}

// percentile returns the upper bound of the bucket holding the q-quantile
// (nearest rank), or 0 for an empty histogram.
func (h *histogram) percentile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(max(math.Ceil(q*float64(h.n)), 1))
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			return histValue(i)
		}
	}
	return histMax
}
