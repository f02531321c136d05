package lockstep

import (
	"math"
	"slices"
	"testing"
	"time"
)

// tickAt is the true time at which tick k's window opens.
func (n *vnet) tickAt(k uint64) time.Duration {
	return n.relay.Start() + time.Duration(k)*n.relay.TickInterval()
}

// clockReport summarises one client's match.
type clockReport struct {
	late, rejected, missing []uint64 // ticks
	maxErr, minErr, meanErr time.Duration
}

// report collects what happened to c's submissions in ticks [from, to)
// and its largest offset error over them.
func (c *vclient) report(from, to uint64) clockReport {
	var r clockReport
	in := func(k uint64) bool { return k >= from && k < to }
	for _, k := range c.late {
		if in(k) {
			r.late = append(r.late, k)
		}
	}
	for _, k := range c.rejected {
		if in(k) {
			r.rejected = append(r.rejected, k)
		}
	}
	for k := from; k < to; k++ {
		if !c.onTime[k] {
			r.missing = append(r.missing, k)
		}
	}
	var sum, cnt time.Duration
	r.minErr = 1 << 62
	for _, s := range c.offErr {
		if in(s.tick) {
			r.maxErr = max(r.maxErr, s.err, -s.err)
			r.minErr = min(r.minErr, s.err)
			sum += s.err
			cnt++
		}
	}
	if cnt > 0 {
		r.meanErr = sum / cnt
	}
	return r
}

// playTicks runs n until every client has applied ticks ticks.
func playTicks(t *testing.T, n *vnet, ticks uint64) {
	t.Helper()
	for n.clients[len(n.clients)-1].applied < int(ticks) {
		if err := n.run(n.now + time.Second); err != nil {
			t.Fatal(err)
		}
		if n.now > time.Duration(ticks)*time.Second {
			t.Fatalf("match stuck after %d ticks", n.clients[len(n.clients)-1].applied)
		}
	}
}

// checkClean fails if c was struck or removed, or if its submissions for
// ticks [from, to) were late, refused or missing, or its offset error
// exceeded maxErr.
func checkClean(t *testing.T, c *vclient, from, to uint64, maxErr time.Duration) {
	t.Helper()
	r := c.report(from, to)
	if c.strikes != 0 || c.removals != 0 || c.core.st.err != nil {
		t.Errorf("player %d: %d strikes, %d removals, error %v", c.id, c.strikes, c.removals, c.core.st.err)
	}
	if len(r.late) != 0 || len(r.rejected) != 0 || len(r.missing) != 0 {
		t.Errorf("player %d, ticks %d-%d: late %v, refused %v, missing %v", c.id, from, to, r.late, r.rejected, r.missing)
	}
	if r.maxErr > maxErr {
		t.Errorf("player %d, ticks %d-%d: offset error up to %v, want at most %v", c.id, from, to, r.maxErr, maxErr)
	}
}

// Bounds of the virtual-time clock tests. Calibration leaves an error of
// a millisecond or two; the envelope of the frame samples adds about as
// much again over a path with 10 ms of jitter each way.
const (
	warmup      = 60 // ticks before the estimate is anchored (500 ms) and settled
	maxClockErr = 8 * time.Millisecond
	// jumpRecovery bounds the ticks after a jump during which a submission
	// may be late, refused or missing.
	jumpRecovery = 30
)

// vpath is a client over a path of 20 ms each way plus up to 10 ms of
// jitter, whose clock reads base + t·(1 + ppm/10⁶).
func vpath(ppm int64, base time.Duration) *vclient {
	return &vclient{clock: vclock{base: base, ppm: ppm}, up: 20 * time.Millisecond, down: 20 * time.Millisecond, jitter: 10 * time.Millisecond}
}

// TestClientClockDrift: clients whose clocks run 0.1% fast and 0.1% slow
// play a 20,000-tick match (11 minutes; 3,000 ticks with -short) against
// the relay core, beside one with an exact clock. By the end the fast and
// slow clocks are 0.67 s off their calibration; every submission after
// the warm-up makes its tick, nobody is struck or removed, the offset
// error stays within a few milliseconds and the measured drift is right.
// The relay lowers its deadline several times meanwhile: the clients'
// estimates must not step (they time frames against the deadline the
// relay announces in TimingFeedback).
func TestClientClockDrift(t *testing.T) {
	ticks := uint64(20_000)
	if testing.Short() {
		ticks = 3_000
	}
	fast, slow, exact := vpath(1000, 7*time.Second), vpath(-1000, 3*time.Hour), vpath(0, 0)
	n, err := newVnet(1, []*vclient{fast, slow, exact})
	if err != nil {
		t.Fatal(err)
	}
	playTicks(t, n, ticks)
	if len(n.qos) == 0 {
		t.Error("the relay never moved its deadline; the test no longer covers it")
	}
	for _, c := range n.clients {
		r := c.report(warmup, ticks-10)
		d := c.core.st.diag
		t.Logf("player %d (%+d ppm): %d late, %d refused, %d missing submissions; offset error max %v (mean %v); correction %v, drift %.0f ppm, %d steps",
			c.id, c.clock.ppm, len(r.late), len(r.rejected), len(r.missing), r.maxErr, r.meanErr, d.ClockCorrection, d.ClockDriftPPM, d.ClockSteps)
		checkClean(t, c, warmup, ticks-10, maxClockErr)
		if d.ClockSteps != 0 {
			t.Errorf("player %d: offset stepped %d times", c.id, d.ClockSteps)
		}
		if math.Abs(d.ClockDriftPPM-float64(c.clock.ppm)) > 100 {
			t.Errorf("player %d: drift %.0f ppm, want %d ± 100", c.id, d.ClockDriftPPM, c.clock.ppm)
		}
	}
}

// TestClientClockJump: mid-match a client's clock jumps by two tick
// windows, forward and later back (the core, like relay.Core, takes a
// reading earlier than one seen before as the latest, so to it the clock
// stands still for two windows, as a monotonic clock does through a
// suspend), and in the other order; then by five windows, so that the
// claims made while the client runs ahead are refused as too early until
// the estimate follows. No one is struck or removed; late, refused or
// missing submissions stop within jumpRecovery ticks of each jump, and
// the offset error is back within bounds after that.
func TestClientClockJump(t *testing.T) {
	const ticks, firstAt, secondAt = 6_000, 2_000, 4_000
	for _, tc := range []struct {
		name string
		by   time.Duration // first jump, in windows; the second undoes it
	}{{"forward-then-back", 2}, {"back-then-forward", -2}, {"five-windows", 5}} {
		t.Run(tc.name, func(t *testing.T) {
			jumper, other := vpath(0, 0), vpath(0, time.Minute)
			n, err := newVnet(2, []*vclient{jumper, other})
			if err != nil {
				t.Fatal(err)
			}
			playTicks(t, n, 10) // the match has started
			window := n.relay.TickInterval()
			jumper.clock.jumps = []vjump{
				{at: n.tickAt(firstAt) + window/3, by: tc.by * window},
				{at: n.tickAt(secondAt) + window/3, by: -tc.by * window},
			}
			playTicks(t, n, ticks)
			checkClean(t, other, warmup, ticks-10, maxClockErr)
			checkClean(t, jumper, warmup, firstAt-1, maxClockErr)
			for _, at := range []uint64{firstAt, secondAt} {
				r := jumper.report(at-1, at+jumpRecovery)
				bad := slices.Sorted(slices.Values(slices.Concat(r.late, r.rejected, r.missing)))
				recovered := uint64(0)
				if len(bad) > 0 {
					recovered = bad[len(bad)-1] + 1 - at
				}
				settled := uint64(0) // ticks until the offset error is back within bounds for good
				for _, s := range jumper.offErr {
					if s.tick >= at && s.tick < at+firstAt && (s.err > maxClockErr || s.err < -maxClockErr) {
						settled = s.tick + 1 - at
					}
				}
				t.Logf("jump at tick %d: late %v, refused %v, missing %v; clean from %d ticks after, offset error within %v from %d ticks after",
					at, r.late, r.rejected, r.missing, recovered, maxClockErr, settled)
				checkClean(t, jumper, at+jumpRecovery, min(at+firstAt, ticks-10), maxClockErr)
			}
			if d := jumper.core.st.diag; d.ClockSteps < 2 {
				t.Errorf("jumper's offset stepped %d times, want at least one a jump", d.ClockSteps)
			}
		})
	}
}
