package transport

import "time"

const (
	initialRTT     = 100 * time.Millisecond
	minRTO         = 10 * time.Millisecond
	maxRTO         = 10 * time.Second
	timerGranulary = time.Millisecond
)

// rttStats estimates the round-trip time from acknowledgements (RFC 6298
// smoothing, with the peer's reported delay removed as in RFC 9002).
type rttStats struct {
	hasSample bool
	latest    time.Duration
	smoothed  time.Duration
	variance  time.Duration
	min       time.Duration
}

// update adds a sample: the time from sending a datagram to receiving its
// acknowledgement, and the delay the peer reported between receiving it and
// acknowledging it.
func (r *rttStats) update(sample, peerDelay time.Duration) {
	if sample <= 0 {
		return
	}
	if !r.hasSample || sample < r.min {
		r.min = sample
	}
	// Subtract the peer's delay unless that would go below the minimum.
	if sample-peerDelay >= r.min {
		sample -= peerDelay
	}
	r.latest = sample
	if !r.hasSample {
		r.hasSample = true
		r.smoothed = sample
		r.variance = sample / 2
		return
	}
	d := r.smoothed - sample
	if d < 0 {
		d = -d
	}
	r.variance = (3*r.variance + d) / 4
	r.smoothed = (7*r.smoothed + sample) / 8
}

// srtt is the smoothed RTT, or the initial guess before any sample.
func (r *rttStats) srtt() time.Duration {
	if !r.hasSample {
		return initialRTT
	}
	return r.smoothed
}

// rto is the retransmission timeout before backoff:
// srtt + 4·rttvar + the peer's maximum ack delay.
func (r *rttStats) rto(ackDelay time.Duration) time.Duration {
	if !r.hasSample {
		return 3*initialRTT + ackDelay
	}
	return max(r.smoothed+max(4*r.variance, timerGranulary)+ackDelay, minRTO)
}
