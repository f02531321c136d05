package fogserver

import (
	"slices"
	"time"
)

// timings keeps the last 1,024 samples of a duration for percentiles.
type timings struct {
	ring [1024]time.Duration
	n    int
	tmp  []time.Duration
}

func (t *timings) add(d time.Duration) {
	t.ring[t.n%len(t.ring)] = d
	t.n++
}

// p99 is the 99th percentile of the samples kept, or 0 without any.
func (t *timings) p99() time.Duration {
	n := min(t.n, len(t.ring))
	if n == 0 {
		return 0
	}
	t.tmp = append(t.tmp[:0], t.ring[:n]...)
	slices.Sort(t.tmp)
	return t.tmp[(n-1)*99/100]
}
