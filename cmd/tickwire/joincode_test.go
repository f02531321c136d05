package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/tracker"
)

// TestBotByJoinCode: a host registers a join code for its room at a
// tracker; "tickwire bot --join-code CODE --tracker URL" resolves it and
// plays that room; the code, single use, is then gone.
func TestBotByJoinCode(t *testing.T) {
	stop, udp, _ := startServer(t, "serve", "--exempt-loopback")
	defer stop()
	trk := httptest.NewServer(tracker.NewHandler(tracker.NewDirectory(tracker.Config{}), tracker.HandlerConfig{}))
	defer trk.Close()
	c, _ := tracker.NewClient(trk.URL)
	code, err := c.RegisterCode(context.Background(), tracker.CodeRequest{Host: udp, Room: "by-code", NetworkModel: "lockstep"})
	if err != nil {
		t.Fatal(err)
	}
	lower := strings.ToLower(code.Code)
	exit, out, errOut := runCmd(t, "bot", "--join-code", lower, "--tracker", trk.URL, "--players", "2", "--ticks", "30", "--json")
	var summary map[string]any
	if err := json.Unmarshal([]byte(out), &summary); exit != 0 || err != nil {
		t.Fatalf("bot --join-code: exit %d, %v: %s %s", exit, err, out, errOut)
	}
	exit, _, errOut = runCmd(t, "bot", "--join-code", code.Code, "--tracker", trk.URL, "--players", "1", "--ticks", "30")
	if exit != exitConnect || !strings.HasPrefix(errOut, "tickwire bot: the tracker at "+trk.URL+" has no such join code") {
		t.Fatalf("a used code: exit %d: %s", exit, errOut)
	}
	for _, args := range [][]string{
		{"--join-code", code.Code, "--players", "1", "--ticks", "1"},
		{"--tracker", trk.URL, "--server", udp, "--room", "r", "--players", "1", "--ticks", "1"},
		{"--join-code", code.Code, "--tracker", trk.URL, "--server", udp, "--players", "1", "--ticks", "1"},
		{"--join-code", "TICK-0000", "--tracker", trk.URL, "--players", "1", "--ticks", "1"},
		{"--join-code", code.Code, "--tracker", "http://tracker.example.org", "--players", "1", "--ticks", "1"},
	} {
		if exit, _, _ := runCmd(t, append([]string{"bot"}, args...)...); exit != 2 {
			t.Errorf("bot %v: exit %d, want 2", args, exit)
		}
	}
}
