package main

import (
	"errors"
	"io"
	"testing"
	"time"
)

func TestDemoFlags(t *testing.T) {
	f, err := parseDemoFlags(nil, io.Discard)
	if err != nil || f.players != 4 || f.ticks != 900 || f.tps != 30 || f.latency != 40*time.Millisecond ||
		f.jitter != 10*time.Millisecond || f.loss != 0.05 || f.json {
		t.Fatalf("defaults %+v, %v", f, err)
	}
	for _, bad := range [][]string{{"--players", "0"}, {"--loss", "2"}, {"--latency", "-1s"}, {"--ticks", "0"}, {"x"}} {
		if _, err := parseDemoFlags(bad, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}

// TestDemoEndToEnd plays a short demo over loopback UDP with impairment
// and checks the JSON summary. Its verdict is the clients' agreement, not
// any timing.
func TestDemoEndToEnd(t *testing.T) {
	code, out, errOut := runCmd(t, "demo", "--players", "3", "--ticks", "150", "--latency", "10ms",
		"--jitter", "3ms", "--loss", "0.02", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	checkBotJSON(t, out, 3)
}
