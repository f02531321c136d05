package server

import "time"

// bucket is a token bucket on the server clock: rate tokens per second up
// to burst. It bounds the messages one connection may queue for its room,
// so a flood from one player neither fills the room's queue nor costs the
// room's goroutine more than rate messages a second.
type bucket struct {
	rate, burst int
	tokens      float64
	last        time.Duration
}

func newBucket(rate, burst int, now time.Duration) bucket {
	return bucket{rate: rate, burst: burst, tokens: float64(burst), last: now}
}

// take takes a token at now, reporting whether there was one.
func (b *bucket) take(now time.Duration) bool {
	if now > b.last {
		b.tokens = min(b.tokens+(now-b.last).Seconds()*float64(b.rate), float64(b.burst))
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
