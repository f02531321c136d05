package main

import (
	"context"
	"io"
	"net"
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

// TestRendezvousAdmin runs "tickwire rendezvous --admin": /healthz and
// /readyz answer, malformed datagrams are counted in /metrics by reason
// (every reason has its series), and the page passes promtool.
func TestRendezvousAdmin(t *testing.T) {
	rv, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"rendezvous", "--listen", rv, "--admin", adm}, io.Discard, io.Discard)
	}()
	defer func() { cancel(); <-done }()
	waitReady(t, "http://"+adm+"/readyz")
	if code, _ := httpGet(t, "http://"+adm+"/healthz"); code != 200 {
		t.Fatalf("/healthz: %d", code)
	}
	c, err := net.Dial("udp", rv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{0xff, 0xee})
	c.Write([]byte{0xff})
	var body string
	waitFor(t, "the refusals counted", func() bool {
		_, body = httpGet(t, "http://"+adm+"/metrics")
		return strings.Contains(body, `tickwire_rendezvous_refusals_total{reason="malformed"} 2`) &&
			strings.Contains(body, `tickwire_rendezvous_refusals_total{reason="unknown_code"} 0`) &&
			strings.Contains(body, "tickwire_rendezvous_codes 0")
	})
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (CI installs it: apt-get install prometheus)")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}
