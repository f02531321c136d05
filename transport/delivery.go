package transport

import "time"

// delivery tracks the bytes of ack-eliciting datagrams acknowledged so
// far, from which each acknowledgement yields a delivery-rate sample for
// the congestion controller (the method of the IETF draft "Delivery Rate
// Estimation"): the bytes delivered while a datagram was in flight, over
// the longer of its send and acknowledgement intervals.
type delivery struct {
	delivered   uint64    // bytes acknowledged
	deliveredAt time.Time // when delivered last grew
	firstSentAt time.Time // send time of the newest datagram acknowledged
	// appLimitedUntil is nonzero while datagrams sent when the application
	// had no reliable non-critical data waiting are in flight: samples are
	// then marked application-limited until delivered passes it.
	appLimitedUntil uint64
	pace            bucket // paces governed data at the controller's rate
}

// deliveryStamp is what a sent datagram remembers of the delivery state.
type deliveryStamp struct {
	delivered   uint64
	deliveredAt time.Time
	firstSentAt time.Time
	appLimited  bool
}

// stamp returns the state to remember with an ack-eliciting datagram sent
// at now; with nothing in flight the intervals restart at now.
func (d *delivery) stamp(now time.Time, idle bool) deliveryStamp {
	if idle {
		d.firstSentAt, d.deliveredAt = now, now
	}
	return deliveryStamp{delivered: d.delivered, deliveredAt: d.deliveredAt, firstSentAt: d.firstSentAt,
		appLimited: d.appLimitedUntil != 0}
}

// sample accounts the acknowledged bytes and returns the sample of the
// newest acknowledged datagram, p, sent at sentAt. Samples over less than
// minInterval (the min RTT) are dropped: acknowledgements bunched together
// would overstate the rate.
func (d *delivery) sample(now, sentAt time.Time, p deliveryStamp, acked int, minInterval time.Duration) rateSample {
	d.delivered += uint64(acked)
	d.deliveredAt = now
	if d.appLimitedUntil != 0 && d.delivered > d.appLimitedUntil {
		d.appLimitedUntil = 0
	}
	interval := max(sentAt.Sub(p.firstSentAt), now.Sub(p.deliveredAt))
	d.firstSentAt = sentAt
	rs := rateSample{priorDelivered: p.delivered, delivered: d.delivered, appLimited: p.appLimited}
	if interval >= minInterval {
		rs.rate = rateOf(d.delivered-p.delivered, interval)
	}
	return rs
}

// markAppLimited notes that the application has no governed data waiting.
func (d *delivery) markAppLimited(inFlight int) {
	d.appLimitedUntil = max(d.delivered+uint64(inFlight), 1)
}

// setRate changes the pacing rate (0: no pacing) and the burst: a few
// milliseconds at the rate, at least minBurst bytes.
func (d *delivery) setRate(rate float64, minBurst int, now time.Time) {
	d.pace.refill(now)
	d.pace.rate = rate
	d.pace.burst = max(float64(minBurst), rate*0.002)
	d.pace.tokens = min(d.pace.tokens, d.pace.burst)
}

// paceReadyAt returns when governed data may leave.
func (d *delivery) paceReadyAt(now time.Time) time.Time {
	if d.pace.rate <= 0 {
		return now
	}
	return d.pace.readyAt(now)
}

// spend charges a datagram to the pacing bucket.
func (d *delivery) spend(n int) {
	if d.pace.rate > 0 {
		d.pace.tokens -= float64(n)
	}
}
