package metrics

import "time"

// PerSecond is n per second of d, or 0 when d is not positive: a figure
// over a span that never began reads 0, not n over a meaningless span.
func PerSecond[N ~int | ~int64 | ~uint64 | ~float64](n N, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Span is the time from start to end, or 0 when either is the zero time
// or end is not after start: a bot that failed before it began to play
// has played for 0, not for the time since year 1.
func Span(start, end time.Time) time.Duration {
	if start.IsZero() || end.IsZero() || !end.After(start) {
		return 0
	}
	return end.Sub(start)
}
