package metrics

import (
	"testing"
	"time"
)

// TestPerSecond: n over a span, 0 over an empty or negative one.
func TestPerSecond(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		d    time.Duration
		want float64
	}{{100, 2 * time.Second, 50}, {100, 0, 0}, {100, -time.Second, 0}, {0, time.Second, 0}, {3, 500 * time.Millisecond, 6}} {
		if got := PerSecond(c.n, c.d); got != c.want {
			t.Errorf("PerSecond(%d, %v) = %v, want %v", c.n, c.d, got, c.want)
		}
	}
}

// TestSpan: a span that never began (the zero time), never ended, or ran
// backwards is 0; issue 18's bot that failed before it played reported
// bytes over the time since year 1.
func TestSpan(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		start, end time.Time
		want       time.Duration
	}{{t0, t0.Add(3 * time.Second), 3 * time.Second}, {time.Time{}, t0, 0}, {t0, time.Time{}, 0}, {t0, t0.Add(-time.Second), 0}, {t0, t0, 0}} {
		if got := Span(c.start, c.end); got != c.want {
			t.Errorf("Span(%v, %v) = %v, want %v", c.start, c.end, got, c.want)
		}
	}
	if r := PerSecond(1e6, Span(time.Time{}, t0)); r != 0 {
		t.Errorf("a bot that never played reads %v bytes/s", r)
	}
}
