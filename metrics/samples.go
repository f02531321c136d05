package metrics

import (
	"cmp"
	"slices"
)

// Samples keeps samples for exact quantiles: all of them, or with Keep
// set, only the last Keep (a sliding window whose memory stays bounded).
// Set Keep before the first Observe and do not change it. The zero value
// keeps every sample. With Keep, Observe allocates once (the window) and
// Quantile once (a copy it sorts and reuses); without, Observe allocates
// as append does. Samples is not safe for concurrent use.
type Samples[T cmp.Ordered] struct {
	Keep int // > 0: keep only the last Keep samples

	kept   []T // in arrival order until Keep is reached, then a ring
	next   int // the ring's oldest sample, once full
	sorted []T // Quantile's scratch
}

// Observe adds one sample.
func (s *Samples[T]) Observe(v T) {
	if s.Keep > 0 && s.kept == nil {
		s.kept = make([]T, 0, s.Keep) // the window's one allocation
	}
	if s.Keep <= 0 || len(s.kept) < s.Keep {
		s.kept = append(s.kept, v)
		return
	}
	s.kept[s.next] = v
	s.next = (s.next + 1) % len(s.kept)
}

// Len is the number of samples kept.
func (s *Samples[T]) Len() int { return len(s.kept) }

// Quantile is the nearest-rank q-quantile (0..1) of the samples kept
// (see Quantile), the zero value when there are none.
func (s *Samples[T]) Quantile(q float64) T {
	s.sorted = append(s.sorted[:0], s.kept...)
	slices.Sort(s.sorted)
	return Quantile(s.sorted, q)
}
