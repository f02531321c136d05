package transport

import (
	"math"
	"time"
)

// bucket is a token bucket of bytes. Tokens may go negative: a datagram is
// sent when the balance is not negative and paid in full, so the long-run
// rate is exact and one datagram of overshoot is repaid by waiting.
type bucket struct {
	rate   float64 // bytes per second
	burst  float64
	tokens float64
	last   time.Time
}

func newBucket(rate, burst float64, now time.Time) bucket {
	return bucket{rate: rate, burst: burst, tokens: burst, last: now}
}

func (b *bucket) refill(now time.Time) {
	if dt := now.Sub(b.last); dt > 0 {
		b.tokens = min(b.burst, b.tokens+b.rate*dt.Seconds())
		b.last = now
	}
}

// readyAt returns when the balance is not negative.
func (b *bucket) readyAt(now time.Time) time.Time {
	b.refill(now)
	if b.tokens >= 0 {
		return now
	}
	ns := math.Ceil(-b.tokens/b.rate*1e9) + 1
	return b.last.Add(time.Duration(ns))
}

// pacer enforces a BandwidthBudget: every datagram pays the total bucket,
// non-critical frames also pay a bucket of (1-CriticalReserve) of the rate
// and Bulk frames one of BulkMaxFraction of the rate.
type pacer struct {
	enabled     bool
	total       bucket
	nonCritical bucket
	bulk        bucket
}

func newPacer(b BandwidthBudget, mtu int, now time.Time) pacer {
	if b.MaxBytesPerSecond <= 0 {
		return pacer{}
	}
	r := float64(b.MaxBytesPerSecond)
	// A burst of a few milliseconds, at least two datagrams.
	burst := func(rate float64) float64 { return max(2*float64(mtu), rate*0.004) }
	nc := r * (1 - b.CriticalReserve)
	bk := r * b.BulkMaxFraction
	return pacer{
		enabled:     true,
		total:       newBucket(r, burst(r), now),
		nonCritical: newBucket(nc, burst(nc), now),
		bulk:        newBucket(bk, burst(bk), now),
	}
}

// readyAt returns when a frame of priority p may be sent.
func (p *pacer) readyAt(pr Priority, now time.Time) time.Time {
	if !p.enabled {
		return now
	}
	t := p.total.readyAt(now)
	if pr != Critical {
		t = later(t, p.nonCritical.readyAt(now))
	}
	if pr == Bulk {
		t = later(t, p.bulk.readyAt(now))
	}
	return t
}

func (p *pacer) allows(pr Priority, now time.Time) bool { return !p.readyAt(pr, now).After(now) }

// spendFrame charges n bytes of a frame of priority pr to its class buckets.
func (p *pacer) spendFrame(pr Priority, n int) {
	if !p.enabled {
		return
	}
	if pr != Critical {
		p.nonCritical.tokens -= float64(n)
	}
	if pr == Bulk {
		p.bulk.tokens -= float64(n)
	}
}

// spendDatagram charges a whole datagram to the total bucket.
func (p *pacer) spendDatagram(n int) {
	if p.enabled {
		p.total.tokens -= float64(n)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// earliest returns the earlier of two times, where zero means "never".
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
