package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageAndHelp(t *testing.T) {
	if code, out, _ := runCmd(t, "help"); code != 0 || !strings.Contains(out, "demo") {
		t.Fatalf("help: code %d, output %q", code, out)
	}
	if code, _, errOut := runCmd(t, "nope"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("unknown command: code %d, stderr %q", code, errOut)
	}
	if code, _, _ := runCmd(t, "bench", "codec", "-h"); code != 0 {
		t.Fatalf("-h exits %d, want 0", code)
	}
	if code, _, _ := runCmd(t, "bench", "codec", "--no-such-flag"); code != 2 {
		t.Fatalf("bad flag exits %d, want 2", code)
	}
	if code, _, _ := runCmd(t, "bench", "nope"); code != 2 {
		t.Fatalf("unknown benchmark exits %d, want 2", code)
	}
}

// TestBenchCodecJSON pins the documented JSON fields of "bench codec".
func TestBenchCodecJSON(t *testing.T) {
	code, out, errOut := runCmd(t, "bench", "codec", "--json", "--ticks", "3000", "--benchtime", "1ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"naive_bytes", "tlv_bytes", "ratio", "encode_ns_per_order", "decode_ns_per_order"} {
		if _, ok := r[k]; !ok {
			t.Errorf("missing field %q", k)
		}
	}
	// The byte counts are deterministic: 3,000 ticks of seed 1 give 8.09,
	// at the target of 8.
	if ratio, _ := r["ratio"].(float64); ratio < 8 {
		t.Errorf("ratio %v below the target 8", r["ratio"])
	}
}
