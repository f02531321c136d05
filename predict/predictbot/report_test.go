package predictbot

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/predict"
)

// TestSummariseNeverPlayed: a client that failed before it predicted
// (its start still the zero time) reports 0 per second, not its bytes
// over the time since year 1 (issue 18); one that played reports its
// bytes over its span.
func TestSummariseNeverPlayed(t *testing.T) {
	var t0 time.Time
	p := summarise(1, predict.Telemetry{Corrections: 3}, metrics.Span(t0, time.Now()), 500, 7000)
	if p.BytesUpPerS != 0 || p.BytesDownPerS != 0 || p.CorrectionsPerS != 0 {
		t.Fatalf("never played: up %v down %v corrections %v per s", p.BytesUpPerS, p.BytesDownPerS, p.CorrectionsPerS)
	}
	p = summarise(1, predict.Telemetry{Corrections: 3}, 2*time.Second, 500, 7000)
	if p.BytesUpPerS != 250 || p.BytesDownPerS != 3500 || p.CorrectionsPerS != 1.5 {
		t.Fatalf("played 2 s: up %v down %v corrections %v per s", p.BytesUpPerS, p.BytesDownPerS, p.CorrectionsPerS)
	}
}
