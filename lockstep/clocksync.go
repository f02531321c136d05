package lockstep

import "time"

// Clock tracking of the relay client. Calibration measures the offset
// between the client's clock and the relay's once, before play; during
// play the client keeps re-estimating it from the tick frames, which the
// relay sends on a fixed schedule: frame k leaves at
//
//	start + (k+1)·T + deadline
//
// on the relay clock. A frame arriving at client time a gives the sample
//
//	y = start + (k+1)·T + deadline + RTT/2 − a  =  offset − (downlink − RTT/2)
//
// Delay only ever lowers a sample (queueing, jitter, loss recovery, the
// relay's own stalls), so the estimate follows the upper envelope of the
// samples: the largest over the last clockWindow. A higher sample is
// taken at once (frames cannot arrive earlier than the path allows, so it
// means the client's clock fell behind); a lower envelope only once a
// whole window of samples agrees (a clock that runs fast or jumped ahead,
// not one delayed frame or a burst held behind a lost one). The RTT term
// makes a symmetric change of the path's delay cancel out. The envelope
// is anchored to the calibrated offset over the first window of play, so
// whatever constant bias the samples carry (an asymmetric path, the
// transport's RTT including jitter) stays out of the estimate.
//
// The samples never depend on the applied offset (they use the client's
// raw clock), so the estimate is open loop and cannot oscillate. The
// applied offset moves toward the estimate by a bounded slew, so the
// timestamps the relay's own clock model sees change smoothly, and steps
// when the two are far apart: a clock that jumped. The bounds are
// asymmetric because the costs are: an offset too low (the client thinks
// the relay clock earlier than it is) makes submissions late, so upward
// the offset slews at up to clockSlewUp and steps from clockStepUp on; an
// offset too high only makes them early, harmless up to a tick window, so
// downward it slews at clockSlewDown (ten times a 0.1% drift) and steps
// only from half a window on. A window of frames all delayed by a burst
// of loss then moves the offset little, and no step needs undoing.
const (
	clockWindow     = 500 * time.Millisecond
	clockMinSamples = 8
	clockSamples    = 64     // ring size: a window of samples up to 120 ticks per second
	clockSlewUp     = 50_000 // ppm of elapsed time
	clockSlewDown   = 10_000 // ppm of elapsed time
	clockStepUp     = 5 * time.Millisecond
	// driftSpan is the period over which the drift is measured.
	driftSpan = 10 * time.Second
)

// clockSample is one frame's offset sample, taken at client time at.
type clockSample struct {
	at, y time.Duration
}

// clockSync estimates relay = client + offset during play. It is pure:
// every input carries the client time it happened at.
type clockSync struct {
	start, interval time.Duration
	deadline        time.Duration // the relay's tick deadline for the next frames

	calibrated time.Duration // offset from MatchTiming
	anchor     time.Duration // calibrated − the envelope of the first window
	anchored   bool
	firstAt    time.Duration

	ring [clockSamples]clockSample
	n    int // samples in ring, ≤ clockSamples
	head int // index of the next write

	target    time.Duration // the estimate the offset moves to
	offset    time.Duration // applied offset
	updatedAt time.Duration
	steps     int

	driftAt     time.Duration // start of the current drift span
	driftTarget time.Duration
	driftSpanOK bool // no step since driftAt
	driftPPM    float64
	driftValid  bool
}

// begin starts tracking at play start with the calibrated offset.
func (c *clockSync) begin(start, interval, deadline, offset time.Duration) {
	*c = clockSync{start: start, interval: interval, deadline: deadline,
		calibrated: offset, target: offset, offset: offset}
}

// frame records frame tick arriving at client time at over a path whose
// round-trip time is rtt, and updates the offset. It reports whether the
// offset stepped.
func (c *clockSync) frame(tick uint64, at, rtt time.Duration) (stepped bool) {
	y := c.start + time.Duration(tick+1)*c.interval + c.deadline + rtt/2 - at
	if c.n == 0 && !c.anchored {
		c.firstAt = at
	}
	c.ring[c.head] = clockSample{at: at, y: y}
	c.head = (c.head + 1) % clockSamples
	c.n = min(c.n+1, clockSamples)
	env, n := c.envelope(at)
	if !c.anchored {
		if at-c.firstAt < clockWindow || n < clockMinSamples {
			return false
		}
		c.anchor, c.anchored = c.calibrated-env, true
		c.updatedAt, c.driftAt, c.driftTarget, c.driftSpanOK = at, at, c.target, true
		return false
	}
	// Up at once; down only when a full window of samples agrees.
	if t := env + c.anchor; t > c.target || n >= clockMinSamples {
		c.target = t
	}
	elapsed := at - c.updatedAt
	switch diff := c.target - c.offset; {
	case diff >= clockStepUp || diff <= -c.interval/2:
		c.offset, stepped = c.target, true
		c.steps++
		c.driftSpanOK = false
	case diff > 0:
		c.offset += min(diff, elapsed*clockSlewUp/1e6)
	default:
		c.offset += max(diff, -elapsed*clockSlewDown/1e6)
	}
	c.updatedAt = at
	c.measureDrift(at)
	return stepped
}

// envelope is the largest sample of the window ending at at, and how many
// samples the window holds.
func (c *clockSync) envelope(at time.Duration) (time.Duration, int) {
	var env time.Duration
	n := 0
	for i := range c.n {
		s := c.ring[(c.head-1-i+clockSamples)%clockSamples]
		if at-s.at >= clockWindow {
			break
		}
		if n == 0 || s.y > env {
			env = s.y
		}
		n++
	}
	return env, n
}

// measureDrift updates the drift figure once per driftSpan without a step.
func (c *clockSync) measureDrift(at time.Duration) {
	dt := at - c.driftAt
	if dt < driftSpan {
		return
	}
	if c.driftSpanOK {
		// The relay clock gains on a client clock running slow, so the
		// offset grows; drift is positive for a client clock running fast.
		ppm := -float64(c.target-c.driftTarget) * 1e6 / float64(dt)
		if c.driftValid {
			c.driftPPM += (ppm - c.driftPPM) / 4
		} else {
			c.driftPPM, c.driftValid = ppm, true
		}
	}
	c.driftAt, c.driftTarget, c.driftSpanOK = at, c.target, true
}
