package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/metrics"
)

// TestBenchRelayJSON pins the documented fields of "bench relay --json" on
// a run without the capacity ramp (which needs the tickwire binary for its
// load processes) and with a short match.
func TestBenchRelayJSON(t *testing.T) {
	code, out, errOut := runCmd(t, "bench", "relay", "--json", "--games", "0", "--core-ticks", "2000", "--match-ticks", "60")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"core_ns_per_tick", "games_max", "lateness_p99_ms", "jitter_p99_ms", "cpu_seconds", "bytes_per_player_per_s", "steps",
		"cpu_us_per_datagram", "floor_us_per_datagram", "ratio_to_floor", "games_per_core", "loadgen_cpu_seconds", "server_cpu_seconds", "encrypted"} {
		if _, ok := r[k]; !ok {
			t.Errorf("missing field %q", k)
		}
	}
	if v, _ := r["core_ns_per_tick"].(float64); v <= 0 {
		t.Errorf("core_ns_per_tick %v", r["core_ns_per_tick"])
	}
	if v, _ := r["bytes_per_player_per_s"].(float64); v <= 0 {
		t.Errorf("bytes_per_player_per_s %v", r["bytes_per_player_per_s"])
	}
	if reflect.TypeOf(r["lateness_p99_ms"]) != reflect.TypeOf([]any{}) {
		t.Errorf("lateness_p99_ms is %T, want an array", r["lateness_p99_ms"])
	}
}

func TestRampSteps(t *testing.T) {
	if got, want := rampSteps(2000), []int{25, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2000}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rampSteps(2000) = %v", got)
	}
	if got := rampSteps(10); !reflect.DeepEqual(got, []int{10}) {
		t.Fatalf("rampSteps(10) = %v", got)
	}
	if got := rampSteps(100); !reflect.DeepEqual(got, []int{25, 50, 75, 100}) {
		t.Fatalf("rampSteps(100) = %v", got)
	}
}

// TestProbeLateness: arrivals on schedule have no lateness; one arrival
// 5 ms behind its place shows 5 ms; a lasting shift of the phase (a QoS
// deadline change) stops counting once the window has moved past it.
func TestProbeLateness(t *testing.T) {
	const iv = 10 * time.Millisecond
	p := newProbe(iv)
	at := func(tick uint64, extra time.Duration) time.Time {
		return p.epoch.Add(50*time.Millisecond + time.Duration(tick)*iv + extra)
	}
	for tick := range uint64(10) {
		p.add(0, tick, at(tick, 0))
	}
	p.add(0, 10, at(10, 5*time.Millisecond))
	s := p.take()
	if len(s) != 11 || s[0] != 0 || s[9] != 0 || s[10] != 5*time.Millisecond {
		t.Fatalf("samples %v", s)
	}
	for tick := uint64(11); tick < 300; tick++ {
		p.add(0, tick, at(tick, 3*time.Millisecond))
	}
	s = p.take()
	if last := s[len(s)-1]; last != 0 {
		t.Fatalf("a lasting phase shift still counts %v", last)
	}
}

// TestLatenessIsAbsolute: a relay that sends every frame 3 ms after its
// place on the schedule reads 3 ms of lateness, not 0. The probe's jitter
// (the old "lateness") is blind to it: it subtracts the earliest arrival.
func TestLatenessIsAbsolute(t *testing.T) {
	lateness := metrics.NewBounded(1e-3, 2e-3, 4e-3, 8e-3)
	for range 40 {
		lateness.Observe(0.5e-3) // earlier frames, under 1 ms
	}
	before := lateness.Snapshot()
	for range 100 {
		lateness.Observe(3e-3) // 100 frames 3 ms late: the (2, 4] ms bucket
	}
	d := lateness.Snapshot().Sub(before)
	if d.Count != 100 || d.Counts[1] != 0 || d.Counts[2] != 100 {
		t.Fatalf("since: %+v", d)
	}
	if p50, p99 := d.Quantile(0.50), d.Quantile(0.99); p50 != 3e-3 || p99 < 3e-3 || p99 > 4e-3 {
		t.Fatalf("p50 %v p99 %v, want 3 ms and within (3, 4] ms", p50, p99)
	}

	const iv = 10 * time.Millisecond
	p := newProbe(iv)
	for tick := range uint64(100) {
		p.add(0, tick, p.epoch.Add(time.Duration(tick)*iv+3*time.Millisecond))
	}
	if j := metrics.Quantile(slices.Sorted(slices.Values(p.take())), 0.99); j != 0 {
		t.Fatalf("jitter %v of a constant delay, want 0", j)
	}
}

// TestBenchServeUsage: bench serve names every mode and refuses an
// unknown one.
func TestBenchServeUsage(t *testing.T) {
	code, _, errOut := runCmd(t, "bench", "serve", "--mode", "nosuch")
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errOut)
	}
	for _, m := range modes() {
		if !strings.Contains(errOut, m.name()) {
			t.Errorf("usage does not name mode %q: %s", m.name(), errOut)
		}
	}
}
