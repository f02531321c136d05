package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/host"
)

func TestStateSyncDemoFlags(t *testing.T) {
	f, err := parseStateSyncDemoFlags(nil, io.Discard)
	if err != nil || f.players != 100 || f.ticks != 1200 || f.loss != 0.02 || f.corrupt != 3 || f.churn != 0.1 {
		t.Fatalf("defaults %+v, %v", f, err)
	}
	for _, bad := range [][]string{{"--players", "256"}, {"--corrupt", "5", "--players", "5"}, {"--churn", "0.9"},
		{"--ticks", "100"}, {"x"}, {"--hostile", "-1"}, {"--hostile", "200", "--players", "100"}} {
		if _, err := parseStateSyncDemoFlags(bad, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}

func TestStateSyncPlans(t *testing.T) {
	plans := ssPlans(100, 1200, 3, 0.1, 1)
	corrupt, churns := 0, 0
	for _, p := range plans {
		if p.corruptAt != 0 {
			corrupt++
			if p.corruptAt < 200 || p.corruptAt+300 > 1200 || len(p.churnAt) > 0 {
				t.Fatalf("corruption plan %+v", p)
			}
		}
		for _, at := range p.churnAt {
			if at+300 > 1200+50 {
				t.Fatalf("churn at %d, too late", at)
			}
		}
		churns += len(p.churnAt)
	}
	if corrupt != 3 || churns != 10*8 {
		t.Fatalf("%d corrupted, %d churns", corrupt, churns)
	}
}

// TestStateSyncDemoEndToEnd plays a short state-sync match of the action
// game over loopback UDP with loss, and checks the JSON summary. Its
// verdict is agreement, never timing.
func TestStateSyncDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 6 s of frames in real time")
	}
	code, out, errOut := runCmd(t, "demo", "--mode", "statesync", "--players", "6", "--ticks", "120",
		"--corrupt", "0", "--churn", "0", "--loss", "0.02", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	var r ssReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Players != 6 || r.Ticks != 120 || !r.AllInSync || r.Tiers["1"] == 0 || r.UploadBytesPerClientS == 0 {
		t.Fatalf("report %+v", r)
	}
}

// TestStateSyncDemoHostile: two hostile bots (every tactic of the
// adversary tests) beside six honest ones over loopback UDP: the honest
// ones end in sync and both hostile bots are identified.
func TestStateSyncDemoHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 6 s of frames in real time")
	}
	code, out, errOut := runCmd(t, "demo", "--mode", "statesync", "--players", "6", "--hostile", "2", "--ticks", "120",
		"--corrupt", "0", "--churn", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	var r ssReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Players != 6 || !r.AllInSync || r.HostileIdentified != 2 {
		t.Fatalf("report %+v", r)
	}
}

// TestStateSyncBotsFromTwoProcesses: two "bot --mode statesync" runs fill
// one state-sync room of a server hosting the model; each ends in sync.
func TestStateSyncBotsFromTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 4 s of frames in real time")
	}
	d, err := startLocalRelay(context.Background(), lanes.TransportConfig(),
		server.Config{Models: []room.Model{host.Model(host.Config{})}, DefaultModel: room.StateSync})
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	type result struct {
		code     int
		out, err string
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			code, out, errOut := runCmd(t, "bot", "--mode", "statesync", "--server", d.addr.String(), "--room", "pair",
				"--players", "3", "--room-size", "6", "--ticks", "80", "--insecure", "--json")
			results <- result{code, out, errOut}
		}()
	}
	for range 2 {
		r := <-results
		var rep ssReport
		if r.code != 0 || json.Unmarshal([]byte(r.out), &rep) != nil || !rep.AllInSync || rep.Players != 3 {
			t.Fatalf("exit %d: %s\n%s", r.code, r.err, r.out)
		}
	}
}
