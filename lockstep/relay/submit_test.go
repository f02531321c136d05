package relay

import (
	"testing"
	"time"
)

// TestLossAllowance works the allowance out by hand: envelope plus two
// timeouts of srtt + max(4·rttvar, srtt/4) + 5 ms, capped at one second.
func TestLossAllowance(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		rtt, rttDev, env, want time.Duration
	}{
		{rtt: 120 * ms, rttDev: 15 * ms, env: 20 * ms, want: 20*ms + 2*(120+60+5)*ms},
		{rtt: 50 * ms, rttDev: ms, env: 7 * ms, want: 7*ms + 2*(50+12.5+5)*ms},
		{rtt: 600 * ms, rttDev: 50 * ms, env: 20 * ms, want: maxLossAllowance},
	} {
		var cal ClockCalibration
		cal.seed(tc.rtt, tc.rttDev, 0)
		if got := lossAllowance(&cal, tc.env); got != tc.want {
			t.Errorf("rtt %v ± %v, envelope %v: allowance %v, want %v", tc.rtt, tc.rttDev, tc.env, got, tc.want)
		}
	}
}

// TestStallRule drives stallUnexplained through the arrival patterns it
// tells apart on a 120 ms round trip (allowance 20 ms + 2 × 185 ms =
// 390 ms): loss recovery, a hold-and-release lag switch, a delay line the
// clock model has re-anchored on, and late arrivals within the envelope.
// Each step is a late submission arriving at at, dev later than expected;
// onTime ends the stall first, as an on-time submission does.
func TestStallRule(t *testing.T) {
	ms := time.Millisecond
	const env = 20 * time.Millisecond
	type step struct {
		at, dev time.Duration
		onTime  bool
		strike  bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"jitter", []step{{at: 1000 * ms, dev: 15 * ms}, {at: 1033 * ms, dev: 19 * ms}}},
		{"one retransmission, queued ones released with it", []step{
			{at: 1150 * ms, dev: 150 * ms}, {at: 1150 * ms, dev: 117 * ms}, {at: 1150 * ms, dev: 83 * ms},
		}},
		{"two retransmissions", []step{{at: 1350 * ms, dev: 350 * ms}, {at: 1350 * ms, dev: 317 * ms}}},
		{"isolated losses", []step{
			{at: 1150 * ms, dev: 150 * ms}, {onTime: true},
			{at: 1450 * ms, dev: 150 * ms}, {onTime: true},
			{at: 1750 * ms, dev: 300 * ms},
		}},
		{"held a second, released in a burst", []step{
			{at: 2000 * ms, dev: 1000 * ms, strike: true}, {at: 2000 * ms, dev: 967 * ms, strike: true},
			{at: 2000 * ms, dev: 933 * ms, strike: true}, {onTime: true}, {at: 2100 * ms, dev: 15 * ms},
		}},
		{"delay line, clock model re-anchored", []step{
			{at: 1300 * ms, dev: 300 * ms}, {at: 1333 * ms, dev: 300 * ms}, {at: 1367 * ms, dev: 300 * ms},
			{at: 1600 * ms, dev: 5 * ms, strike: true}, {at: 1633 * ms, dev: 0, strike: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Core{}
			p := &player{}
			p.state.Clock.seed(120*ms, 15*ms, env/outlierK)
			for i, s := range tc.steps {
				if s.onTime {
					p.stalled = false
					continue
				}
				c.now = s.at
				if got := c.stallUnexplained(p, s.dev, env); got != s.strike {
					t.Errorf("step %d (at %v, %v late): strike %v, want %v", i, s.at, s.dev, got, s.strike)
				}
			}
		})
	}
}
