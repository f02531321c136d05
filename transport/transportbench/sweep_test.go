package transportbench

import (
	"strings"
	"testing"
	"time"
)

// sweepCorners are the corners of the sweep's grid: loss 0 and 5%, jitter
// 0 and 20 ms, one-way delay 5 and 150 ms, and a bursty and two
// bottleneck paths. The 5 ms paths with 20 ms of jitter are left to the
// bench (tickwire bench transport --sweep): their min RTT is near zero,
// the model misses there (see knownMiss) and their transfers are the
// slowest of the grid to simulate.
func sweepCorners() []SweepPath {
	var ps []SweepPath
	for _, delay := range []time.Duration{5, 150} {
		for _, jitter := range []time.Duration{0, 20} {
			for _, loss := range []float64{0, 0.05} {
				if jitter > delay {
					continue
				}
				ps = append(ps, SweepPath{Delay: delay * time.Millisecond, Jitter: jitter * time.Millisecond, Loss: loss})
			}
		}
	}
	return append(ps,
		SweepPath{Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02, Bursty: true},
		SweepPath{Delay: 5 * time.Millisecond, Loss: 0.05, Bottleneck: 2_000_000 / 8},
		SweepPath{Delay: 150 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.01, Bottleneck: 10_000_000 / 8},
	)
}

// knownMiss says why the model misses a bound of the sweep on p with w,
// or "" where it must meet them (see BENCHMARKS.md, the congestion
// sweep).
func knownMiss(p SweepPath, w SweepWorkload) string {
	switch {
	case w != SweepFile:
		return ""
	case p.Bottleneck == 0 && p.Jitter >= p.Delay:
		return "jitter as large as the one-way delay: the min RTT is near zero, and so is the window of one BDP"
	case p.Bottleneck == 0 && (p.Jitter > 0 || p.Bursty):
		return "Startup's climb, and a window of one BDP plus room on a path whose jitter or bursts it does not cover"
	case p.Bottleneck == 0:
		return "Startup climbs from 10 MTUs to the 1 MiB cap in 4-5 round trips; the fixed window sends its 1 MiB in the first"
	case p.Bottleneck*p.MinRTT().Nanoseconds()/1e9 < 4*1200:
		return "the BDP is under the minimum window of four datagrams, whose rest queues"
	case p.MinRTT() > 200*time.Millisecond:
		return "not explained yet: goodput 85-90% of the link at a min RTT over 200 ms"
	}
	return ""
}

// TestSweepCorners is point 7 of the congestion issue, the proof a
// default needs: on every corner of the sweep the model-based controller
// stays within the bounds of SweepCheck against the fixed window, in
// virtual time, for the three workloads, except where knownMiss says why
// not (those are logged). The whole grid is "tickwire bench transport
// --sweep".
func TestSweepCorners(t *testing.T) {
	for _, p := range sweepCorners() {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			var table strings.Builder
			WriteSweepHeader(&table)
			var rows []SweepRow
			err := RunSweep([]SweepPath{p}, 1, func(r SweepRow) {
				rows = append(rows, r)
				switch k := knownMiss(p, r.Model.Workload); {
				case r.Miss != "" && k == "":
					t.Errorf("%v: %s", r.Model.Workload, r.Miss)
				case r.Miss != "":
					t.Logf("%v: %s (known: %s)", r.Model.Workload, r.Miss, k)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			WriteSweepRows(&table, rows)
			t.Logf("\n%s", table.String())
		})
	}
}
