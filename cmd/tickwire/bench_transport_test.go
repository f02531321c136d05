package main

import (
	"encoding/json"
	"testing"
)

// TestBenchTransportJSON pins the documented JSON fields of "bench
// transport" on a short W1 and W2 (real loopback sockets, no timing
// asserted).
func TestBenchTransportJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sockets for about a second")
	}
	code, out, errOut := runCmd(t, "bench", "transport", "--json", "--duration", "200ms", "--workload", "w1,W2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Workloads []map[string]any `json:"workloads"`
		Security  json.RawMessage  `json:"security"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	if len(r.Workloads) != 2 || r.Security == nil {
		t.Fatalf("got %d workloads, security %s", len(r.Workloads), r.Security)
	}
	for _, w := range r.Workloads {
		for _, k := range []string{"workload", "series", "wire_bytes_per_msg", "cpu_us_per_msg", "rss_mib", "peak_rss_mib"} {
			if _, ok := w[k]; !ok {
				t.Errorf("%v: missing field %q", w["workload"], k)
			}
		}
		series, _ := w["series"].([]any)
		if len(series) == 0 {
			t.Fatalf("%v: no series", w["workload"])
		}
		for _, k := range []string{"p50_ms", "p99_ms", "p999_ms", "goodput_bytes_per_s", "delivered"} {
			if _, ok := series[0].(map[string]any)[k]; !ok {
				t.Errorf("%v: series lacks %q", w["workload"], k)
			}
		}
	}
	if code, _, _ := runCmd(t, "bench", "transport", "--workload", "W9"); code != 2 {
		t.Errorf("unknown workload exits %d, want 2", code)
	}
}
