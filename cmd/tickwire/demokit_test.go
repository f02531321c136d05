package main

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
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
		{[]string{"--bogus"}, "unknown flag --bogus"},          // a flag error
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

// TestDemoServerDial: bots dial a demo server through netsim, encrypted
// and pinning its key.
func TestDemoServerDial(t *testing.T) {
	f := demoCommon{latency: time.Millisecond, seed: 3}
	d, err := startDemoServer(t.Context(), &f, server.Config{TickRate: 30, Models: []room.Model{lockstepserver.Model(lockstepserver.Config{})}})
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
