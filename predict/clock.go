package predict

import "time"

// clockSample is one ping's view of the server clock.
type clockSample struct {
	rtt    time.Duration
	offset float64 // server tick minus client time in ticks
}

// clock estimates the server's tick from the client's clock: each Pong
// gives the server tick at the moment it answered; half the round trip
// later (the client's receive time) the server is that much further. Of
// the last eight samples the one with the smallest round trip, least
// inflated by queueing, sets the offset. RTT is smoothed as TCP does
// (RFC 6298 gains).
type clock struct {
	interval time.Duration
	samples  [8]clockSample
	n        int
	rtt      time.Duration
	rttVar   time.Duration
	offset   float64
}

func (k *clock) ready() bool { return k.n > 0 }

// observe records a Pong received at now for a Ping sent at sent.
func (k *clock) observe(now, sent time.Duration, serverTick uint64) {
	rtt := max(now-sent, 0)
	if k.n == 0 {
		k.rtt, k.rttVar = rtt, rtt/2
	} else {
		d := k.rtt - rtt
		if d < 0 {
			d = -d
		}
		k.rttVar += (d - k.rttVar) / 4
		k.rtt += (rtt - k.rtt) / 8
	}
	// The server answered some time within its current tick: take the
	// middle of it.
	at := float64(serverTick) + 0.5 + float64(rtt/2)/float64(k.interval)
	k.samples[k.n%len(k.samples)] = clockSample{rtt: rtt, offset: at - float64(now)/float64(k.interval)}
	k.n++
	best := k.samples[0]
	for _, s := range k.samples[:min(k.n, len(k.samples))] {
		if s.rtt < best.rtt {
			best = s
		}
	}
	k.offset = best.offset
}

// serverTick estimates the server's tick (fractional) at client time now.
func (k *clock) serverTick(now time.Duration) float64 {
	return float64(now)/float64(k.interval) + k.offset
}
