package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMetricsPassPromtool plays a match into "tickwire serve" and checks
// its /metrics with Prometheus's own linter (promtool check metrics). CI
// installs promtool (Debian's prometheus package); without it the test
// skips.
func TestMetricsPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (CI installs it: apt-get install prometheus)")
	}
	stop, udp, adm := startServer(t, "serve", "--exempt-loopback")
	if code, out, errOut := runCmd(t, "bot", "--server", udp, "--room", "m", "--players", "2", "--ticks", "30", "--json"); code != 0 {
		t.Fatalf("bot: exit %d: %s %s", code, out, errOut)
	}
	_, body := httpGet(t, "http://"+adm+"/metrics")
	stop()
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}
