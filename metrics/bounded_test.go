package metrics

import (
	"math"
	"sync"
	"testing"
	"time"
)

// lateness are the server's broadcast-lateness bounds, in seconds.
var lateness = []float64{50e-6, 100e-6, 250e-6, 500e-6, 750e-6, 1e-3, 1.5e-3, 2e-3, 3e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3}

// TestCumulativeQuantile: counts per bucket, the +Inf bucket, and the
// interpolated quantile as Prometheus's histogram_quantile computes it.
func TestCumulativeQuantile(t *testing.T) {
	h := NewBounded(lateness...)
	if got := h.Snapshot().Quantile(0.99); got != 0 {
		t.Errorf("empty histogram p99 = %v", got)
	}
	for range 98 {
		h.Observe(30e-6)
	}
	h.Observe(4e-3)
	h.Observe(1) // beyond the last bound
	s := h.Snapshot()
	if s.Count != 100 || s.Counts[0] != 98 || s.Counts[len(s.Counts)-1] != 99 {
		t.Fatalf("snapshot %+v", s)
	}
	for _, c := range []struct{ q, want float64 }{
		{0.49, 25e-6}, // rank 49 of the 98 in [0, 50µs]
		{0.98, 50e-6}, // rank 98: the top of the first bucket
		{0.985, 4e-3}, // halfway into (3, 5] ms, which holds one
		{1, 100e-3},   // the +Inf bucket reads the last bound
	} {
		if got := s.Quantile(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if want := 98*30e-6 + 4e-3 + 1; math.Abs(s.Sum-want) > 1e-12 {
		t.Errorf("sum %v, want %v", s.Sum, want)
	}
}

// TestCumulativeSub: the difference of two snapshots is what was
// observed between them; a bound's value goes in its bucket (le).
func TestCumulativeSub(t *testing.T) {
	h := NewBounded(lateness...)
	h.Observe(1e-3)
	before := h.Snapshot()
	for range 10 {
		h.Observe(3e-3)
	}
	d := h.Snapshot().Sub(before)
	if d.Count != 10 || d.Counts[7] != 0 || d.Counts[8] != 10 || math.Abs(d.Sum-30e-3) > 1e-12 {
		t.Fatalf("since: %+v", d)
	}
	if p50 := d.Quantile(0.5); math.Abs(p50-2.5e-3) > 1e-12 {
		t.Fatalf("p50 %v", p50)
	}
	if before.Counts[5] != 1 || before.Counts[4] != 0 {
		t.Fatalf("1 ms not in the 1 ms bucket: %v", before.Counts)
	}
}

// TestBoundedConcurrent: observations from many goroutines are all
// counted (run with -race).
func TestBoundedConcurrent(t *testing.T) {
	h := NewBounded(lateness...)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				h.Observe(float64(g*1000+i) * 1e-6)
				if i%100 == 0 {
					h.Snapshot()
				}
			}
		})
	}
	wg.Wait()
	s := h.Snapshot()
	if s.Count != 8000 || s.Counts[len(s.Counts)-1] != 8000 || s.Counts[0] != 51 { // 0 to 7.999 ms; 0 to 50 µs
		t.Fatalf("snapshot %+v", s)
	}
	if want := 8000 * 7999 / 2 * 1e-6; math.Abs(s.Sum-want) > 1e-6 {
		t.Fatalf("sum %v, want %v", s.Sum, want)
	}
}

// TestBoundedZero: a zero Bounded counts and sums; NaN is ignored;
// Observe allocates nothing.
func TestBoundedZero(t *testing.T) {
	var h Bounded
	h.Observe(2)
	h.Observe(math.NaN())
	if s := h.Snapshot(); s.Count != 1 || s.Sum != 2 || len(s.Counts) != 0 || s.Quantile(0.5) != 0 {
		t.Fatalf("snapshot %+v", s)
	}
	b := NewBounded(lateness...)
	if n := testing.AllocsPerRun(100, func() { b.Observe(float64(time.Millisecond) / 1e9) }); n != 0 {
		t.Fatalf("Observe allocates %v times", n)
	}
}

// TestNewBoundedRejects: bounds out of order or not finite are a
// programming error.
func TestNewBoundedRejects(t *testing.T) {
	for _, bounds := range [][]float64{{2, 1}, {1, 1}, {math.NaN()}, {math.Inf(1)}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewBounded(%v) did not panic", bounds)
				}
			}()
			NewBounded(bounds...)
		}()
	}
}
