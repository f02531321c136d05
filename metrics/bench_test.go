package metrics

import (
	"testing"
	"time"
)

// BenchmarkHistogramObserve: one sample into the log-linear histogram.
func BenchmarkHistogramObserve(b *testing.B) {
	var h Histogram
	v := 1e-3
	for b.Loop() {
		h.Observe(v)
		v *= 1.0001
	}
}

// BenchmarkBoundedObserve: one sample into the atomic histogram of the
// server's 14 lateness bounds.
func BenchmarkBoundedObserve(b *testing.B) {
	h := NewBounded(lateness...)
	v := 1e-5
	for b.Loop() {
		h.Observe(v)
		v *= 1.0001
	}
}

// BenchmarkSamplesP99: the fog room's p99 over a full 1,024-tick window.
func BenchmarkSamplesP99(b *testing.B) {
	s := Samples[time.Duration]{Keep: 1024}
	for i := range 1024 {
		s.Observe(time.Duration(i*7919%1024) * time.Microsecond)
	}
	for b.Loop() {
		s.Quantile(0.99)
	}
}
