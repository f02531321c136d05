package relay

import "time"

// Outlier handling of the clock estimators: a sample further than
// outlierK deviations (plus the skew budget) from the mean is not absorbed;
// if outliers keep agreeing with each other for reanchorAfter of relay time
// (and at least reanchorSamples of them), the estimate jumps to them, so a
// real clock step or route change is followed while a burst of withheld
// packets is not.
const (
	outlierK        = 4
	reanchorAfter   = 500 * time.Millisecond
	reanchorSamples = 8
	skewInterval    = time.Second
)

// robustEWMA is a smoothed mean and mean deviation (the shape of TCP's
// SRTT and RTTVAR, gains 1/8 and 1/4) that refuses outliers.
type robustEWMA struct {
	Mean, Dev time.Duration
	seeded    bool
	runStart  time.Duration // arrival of the first outlier of the current run
	runMean   time.Duration // mean of the current outlier run
	runN      int
}

// observe folds x in unless it lies beyond the envelope of outlierK
// deviations plus slack, and reports whether it did. The deviation learns
// from outliers too, at a sixteenth of the gain and clipped to twice the
// envelope.
func (e *robustEWMA) observe(now, x, slack time.Duration) bool {
	if !e.seeded {
		e.Mean, e.Dev, e.seeded = x, x/2, true
		return true
	}
	d := x - e.Mean
	if abs(d) <= outlierK*e.Dev+slack {
		e.runN = 0
		e.Dev += (abs(d) - e.Dev) / 4
		e.Mean += d / 8
		return true
	}
	// An outlier widens the deviation slowly and by a bounded amount, so a
	// path whose jitter really grew is soon explained while a burst of
	// withheld packets barely moves it.
	e.Dev += (min(abs(d), 2*(outlierK*e.Dev+slack)) - e.Dev) / 16
	if e.runN > 0 && abs(x-e.runMean) <= outlierK*e.Dev+slack {
		e.runN++
		e.runMean += (x - e.runMean) / time.Duration(e.runN)
		if e.runN >= reanchorSamples && now-e.runStart >= reanchorAfter {
			e.Mean, e.runN = e.runMean, 0
		}
		return false
	}
	e.runStart, e.runMean, e.runN = now, x, 1
	return false
}

// seed starts the estimator at a calibrated mean and deviation.
func (e *robustEWMA) seed(mean, dev time.Duration) {
	*e = robustEWMA{Mean: mean, Dev: dev, seeded: true}
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// ClockCalibration is the relay's model of one player's clock and path,
// used to map the player's timestamp hints into relay time.
//
// The client stamps its submissions with its estimate of the relay clock
// (its own clock plus the MatchTiming offset). Offset is what is left over:
// relay time = client estimate + Offset. Each submission yields a sample,
// arrival - sentUs - RTT/2, which on a symmetric path equals the residual
// offset plus the uplink's jitter. RTT comes from the liveness echo: the
// time from sending frame AckTick to receiving its echo, less the client's
// reported hold time.
type ClockCalibration struct {
	// Offset is the smoothed residual offset and its mean deviation, the
	// player's jitter envelope.
	Offset robustEWMA
	// RTT is the smoothed round-trip time and its mean deviation.
	RTT robustEWMA
	// Skew is the drift of Offset in parts per million of relay time.
	Skew int64
	// Samples counts offset samples; Outliers those refused.
	Samples, Outliers int

	lastSample   time.Duration
	anchorAt     time.Duration
	anchorOffset time.Duration
}

// OneWay is the estimated one-way delay.
func (c *ClockCalibration) OneWay() time.Duration { return c.RTT.Mean / 2 }

// Jitter is the envelope's unit: the offset samples' mean deviation.
func (c *ClockCalibration) Jitter() time.Duration { return c.Offset.Dev }

// OffsetAt extrapolates the residual offset to now by the skew.
func (c *ClockCalibration) OffsetAt(now time.Duration) time.Duration {
	return c.Offset.Mean + time.Duration(c.Skew*int64(now-c.lastSample)/1e6)
}

// observeRTT folds in a round-trip sample.
func (c *ClockCalibration) observeRTT(now, rtt, slack time.Duration) {
	if rtt > 0 {
		c.RTT.observe(now, rtt, slack)
	}
}

// expectedArrival is when the model expects a submission stamped sent
// (client's estimate of relay time) to arrive.
func (c *ClockCalibration) expectedArrival(now, sent time.Duration) time.Duration {
	return sent + c.OneWay() + c.OffsetAt(now)
}

// observeOffset folds in the offset sample of a submission stamped sent
// (client's estimate of relay time) arriving at now. It returns the
// sample's deviation from the estimate before the update.
func (c *ClockCalibration) observeOffset(now, sent, slack time.Duration) time.Duration {
	sample := now - sent - c.OneWay()
	dev := now - c.expectedArrival(now, sent)
	c.Samples++
	if !c.Offset.observe(now, sample, slack) {
		c.Outliers++
		return dev
	}
	if c.anchorAt == 0 {
		c.anchorAt, c.anchorOffset = now, c.Offset.Mean
	} else if dt := now - c.anchorAt; dt >= skewInterval {
		ppm := int64(c.Offset.Mean-c.anchorOffset) * 1e6 / int64(dt)
		c.Skew += (ppm - c.Skew) / 4
		c.anchorAt, c.anchorOffset = now, c.Offset.Mean
	}
	c.lastSample = now
	return dev
}

// seed starts the model from match-start calibration: the client applies
// the measured clock offset itself, so the residual starts at zero.
func (c *ClockCalibration) seed(rtt, rttDev, jitter time.Duration) {
	*c = ClockCalibration{}
	c.RTT.seed(rtt, rttDev)
	c.Offset.seed(0, jitter)
}
