package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/internal/botrun"
	"github.com/tickwire/tickwire/relay/server"
)

// TestDemoCommonParse: a mode's spec sets the shared defaults, and the
// mode's own check runs after the shared counts and before the link.
func TestDemoCommonParse(t *testing.T) {
	spec := demoSpec{name: "demo --mode x", tps: 20, latency: 7 * time.Millisecond, loss: 0.5}
	var f demoCommon
	if err := f.parse(f.flagSet(spec, io.Discard), nil, 8, nil); err != nil {
		t.Fatal(err)
	}
	if f.players != 4 || f.ticks != 900 || f.tps != 20 || f.latency != 7*time.Millisecond || f.jitter != 10*time.Millisecond ||
		f.loss != 0.5 || f.seed != 1 || f.json || f.sec.insecure {
		t.Fatalf("defaults %+v", f)
	}
	errMode := errors.New("the mode's check")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--players", "9"}, "--players must be 1..8"}, // the shared counts first
		{[]string{"--loss", "2"}, "the mode's check"},          // then the mode's
		{[]string{"--tps", "1001"}, "--tps must be 1..1000"},   // the shared counts first
		{[]string{"--bogus"}, "flag provided but not defined"}, // a flag error
	} {
		var f demoCommon
		err := f.parse(f.flagSet(spec, io.Discard), tc.args, 8, func() error { return errMode })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	var g demoCommon
	if err := g.parse(g.flagSet(spec, io.Discard), []string{"--loss", "2"}, 8, nil); !errors.Is(err, errUsage) {
		t.Errorf("--loss 2: %v, want a usage error from the link", err)
	}
}

func TestBotCommonParse(t *testing.T) {
	spec := botSpec{name: "bot --mode x"}
	var f botCommon
	if err := f.parse(f.flagSet(spec, io.Discard), []string{"--server", "a:1", "--room", "r", "--players", "3", "--ticks", "5"}, 4, nil); err != nil || f.roomSize != 3 {
		t.Fatalf("room size %d, %v", f.roomSize, err)
	}
	var g botCommon
	err := g.parse(g.flagSet(spec, io.Discard), []string{"--server", "a:1", "--room", "r", "--players", "3", "--ticks", "5", "--room-size", "5"}, 4, nil)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "between --players and 4") {
		t.Fatalf("--room-size 5 of at most 4: %v", err)
	}
}

func TestRunModeNamesTheModes(t *testing.T) {
	err := runMode(t.Context(), []string{"--mode", "nope"}, io.Discard, io.Discard, func(m networkMode) subcommand { return m.demo })
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), `unknown --mode "nope" (lockstep, fogauth, predict)`) {
		t.Fatalf("%v", err)
	}
}

func TestPlayBotsKeepsOrder(t *testing.T) {
	got := playBots(50, func(i int) int { return i * i })
	for i, v := range got {
		if v != i*i {
			t.Fatalf("result %d is %d", i, v)
		}
	}
}

// TestLockstepReportJSON: the lockstep summary's JSON is exactly the
// botrun.Report's.
func TestLockstepReportJSON(t *testing.T) {
	r := botrun.Report{Players: []botrun.PlayerReport{{ID: 1, FinalHash: "00ff"}}, AllInSync: true, NetworkModel: "lockstep"}
	want, _ := json.Marshal(&r)
	var out bytes.Buffer
	if err := printReport(&out, lockstepReport{&r}, true, nil); err != nil {
		t.Fatal(err)
	}
	if got := bytes.TrimSpace(out.Bytes()); !bytes.Equal(got, want) {
		t.Fatalf("JSON %s, want %s", got, want)
	}
	r.AllInSync = false
	if err := printReport(io.Discard, lockstepReport{&r}, false, nil); !errors.Is(err, errNotInSync) {
		t.Fatalf("verdict %v", err)
	}
}

// TestDemoServerDial: bots dial a demo server through netsim, encrypted
// and pinning its key.
func TestDemoServerDial(t *testing.T) {
	f := demoCommon{latency: time.Millisecond, seed: 3}
	d, err := startDemoServer(t.Context(), &f, server.Config{TickRate: 30})
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	if d.client.Security == nil || d.client.Security.ServerKey == nil {
		t.Fatalf("the bots do not pin the server's key: %+v", d.client.Security)
	}
	for i := range 2 {
		conn, err := d.dial(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
}
