package tracker

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rate is a request rate: N requests per Per.
type Rate struct {
	N   int
	Per time.Duration
}

// ParseRate reads "10/min", "5/s", "100/hour".
func ParseRate(s string) (Rate, error) {
	n, unit, ok := strings.Cut(s, "/")
	v, err := strconv.Atoi(n)
	if !ok || err != nil || v < 1 {
		return Rate{}, fmt.Errorf("rate %q: want N/s, N/min or N/hour with N ≥ 1", s)
	}
	per := map[string]time.Duration{"s": time.Second, "sec": time.Second, "min": time.Minute, "m": time.Minute, "hour": time.Hour, "h": time.Hour}[unit]
	if per == 0 {
		return Rate{}, fmt.Errorf("rate %q: unit must be s, min or hour", s)
	}
	return Rate{N: v, Per: per}, nil
}

func (r Rate) String() string {
	switch r.Per {
	case time.Second:
		return strconv.Itoa(r.N) + "/s"
	case time.Hour:
		return strconv.Itoa(r.N) + "/hour"
	}
	return strconv.Itoa(r.N) + "/min"
}

// Limiter is a token bucket per client address, holding at most maxKeys
// addresses: when full, buckets that have refilled are forgotten first,
// and an address that still finds no room is refused (a flood of
// addresses cannot grow it). The tracker's HTTP API and the rendezvous
// server share it.
type Limiter struct {
	rate    Rate
	maxKeys int
	mu      sync.Mutex
	buckets map[string]*bucket
	// noneFullBefore: when full, no bucket refills before this time, so
	// a flood of new addresses does not rescan them all each time.
	noneFullBefore time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// NewLimiter allows each key r, remembering at most maxKeys keys.
func NewLimiter(r Rate, maxKeys int) *Limiter {
	return &Limiter{rate: r, maxKeys: maxKeys, buckets: make(map[string]*bucket)}
}

// Allow takes a token for key at now, or reports how long until one.
func (l *Limiter) Allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	perToken := l.rate.Per / time.Duration(l.rate.N)
	burst := float64(l.rate.N)
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.maxKeys && !now.Before(l.noneFullBefore) {
			l.forgetFull(now, burst, perToken)
		}
		if len(l.buckets) >= l.maxKeys {
			return false, perToken
		}
		b = &bucket{tokens: burst, last: now}
		l.buckets[key] = b
	}
	if el := now.Sub(b.last); el > 0 {
		b.tokens = min(burst, b.tokens+float64(el)/float64(perToken))
		b.last = now
	}
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) * float64(perToken))
	}
	b.tokens--
	return true, 0
}

// Len is the number of keys remembered, at most maxKeys.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// forgetFull forgets the buckets that have refilled, and notes when the
// next of the others will have.
func (l *Limiter) forgetFull(now time.Time, burst float64, perToken time.Duration) {
	next := now.Add(time.Duration(burst * float64(perToken)))
	for k, b := range l.buckets {
		full := b.last.Add(time.Duration((burst - b.tokens) * float64(perToken)))
		if !full.After(now) {
			delete(l.buckets, k)
		} else if full.Before(next) {
			next = full
		}
	}
	l.noneFullBefore = next
}
