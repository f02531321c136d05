package metrics

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSamplesWindow: with Keep, the quantiles are those of the last Keep
// samples (brute force over the tail of everything observed); without,
// those of every sample.
func TestSamplesWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 100 {
		keep := rng.IntN(40)
		s := Samples[time.Duration]{Keep: keep}
		var all []time.Duration
		for range rng.IntN(200) {
			d := time.Duration(rng.IntN(1000))
			s.Observe(d)
			all = append(all, d)
		}
		tail := all
		if keep > 0 && len(tail) > keep {
			tail = tail[len(tail)-keep:]
		}
		if s.Len() != len(tail) {
			t.Fatalf("keep %d of %d: Len %d", keep, len(all), s.Len())
		}
		sorted := slices.Sorted(slices.Values(tail))
		for _, q := range []float64{0, 0.5, 0.99, 1} {
			if got, want := s.Quantile(q), Quantile(sorted, q); got != want {
				t.Fatalf("keep %d of %d q=%v: %v, brute force %v", keep, len(all), q, got, want)
			}
		}
	}
}

// TestSamplesSteadyState: a full window observes and reads its p99
// without allocating.
func TestSamplesSteadyState(t *testing.T) {
	s := Samples[time.Duration]{Keep: 64}
	for i := range 100 {
		s.Observe(time.Duration(i))
	}
	s.Quantile(0.99)
	i := 0
	if n := testing.AllocsPerRun(100, func() { i++; s.Observe(time.Duration(i)); s.Quantile(0.99) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
