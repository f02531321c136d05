package lockstepserver

import (
	"testing"
	"time"
)

func TestHistogramQuantile(t *testing.T) {
	var h histogram
	if got := h.snapshot().Quantile(0.99); got != 0 {
		t.Errorf("empty histogram p99 = %v", got)
	}
	for range 98 {
		h.observe(30 * time.Microsecond)
	}
	h.observe(4 * time.Millisecond)
	h.observe(time.Second) // beyond the last bound
	s := h.snapshot()
	if s.Count != 100 || s.Counts[0] != 98 || s.Counts[len(s.Counts)-1] != 99 {
		t.Fatalf("snapshot %+v", s)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Microsecond}, {0.98, 50 * time.Microsecond}, {0.99, 5 * time.Millisecond}, {1, 100 * time.Millisecond}} {
		if got := s.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if want := 98*30*time.Microsecond + 4*time.Millisecond + time.Second; s.Sum != want {
		t.Errorf("sum %v, want %v", s.Sum, want)
	}
}
