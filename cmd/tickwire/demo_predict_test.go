package main

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
)

func TestSplitMode(t *testing.T) {
	for _, tc := range []struct {
		args []string
		mode string
		rest string
	}{
		{[]string{"--mode", "predict", "--local"}, "predict", "--local"},
		{[]string{"--players", "2", "--mode=predict"}, "predict", "--players 2"},
		{[]string{"--players", "2"}, "", "--players 2"},
	} {
		mode, rest, err := splitMode(tc.args)
		if err != nil || mode != tc.mode || strings.Join(rest, " ") != tc.rest {
			t.Errorf("%v: mode %q rest %v, %v", tc.args, mode, rest, err)
		}
	}
	for _, args := range [][]string{{"--ticks", "30", "--mode"}, {"--mode", "--ticks", "30"}, {"--mode="}} {
		if _, _, err := splitMode(args); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--mode needs a value") {
			t.Errorf("%v: %v, want --mode needs a value", args, err)
		}
	}
}

func TestDemoPredictFlags(t *testing.T) {
	f, err := parseDemoPredictFlags(nil, io.Discard)
	if err != nil || f.players != 4 || f.ticks != 900 || f.tps != 60 || f.loss != 0.02 || f.local || f.arena != 48 || f.interest != 24 {
		t.Fatalf("defaults %+v, %v", f, err)
	}
	if f, _ := parseDemoPredictFlags([]string{"--players", "64"}, io.Discard); f.arena != 96 {
		t.Fatalf("64 players on a %d-unit arena, want 96 (the density of 16 on 48)", f.arena)
	}
	if f, _ := parseDemoPredictFlags([]string{"--local", "--players", "3"}, io.Discard); f.players != 1 {
		t.Fatalf("--local plays one bot, not %d", f.players)
	}
	for _, bad := range [][]string{{"--players", "0"}, {"--loss", "2"}, {"--ticks", "0"}, {"x"}, {"--arena", "-1"}, {"--interest", "-1"}} {
		if _, err := parseDemoPredictFlags(bad, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}

// checkPredictJSON decodes a predict summary and checks every client
// played and the fields are present.
func checkPredictJSON(t *testing.T, out string, players int) predictReport {
	t.Helper()
	for _, field := range []string{`"id"`, `"ticks"`, `"inputs_sent"`, `"inputs_acked"`, `"corrections"`, `"corrections_per_s"`,
		`"hard_snaps"`, `"mean_error"`, `"p99_error"`, `"replay_depth_p99"`, `"input_to_ack_p50_ms"`, `"input_to_ack_p99_ms"`,
		`"provisional_spawns"`, `"provisional_mapped"`, `"provisional_discarded"`, `"bytes_up_per_s"`, `"bytes_down_per_s"`, `"parity_ok"`} {
		if !strings.Contains(out, field) {
			t.Errorf("JSON lacks %s", field)
		}
	}
	var r predictReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(r.Players) != players {
		t.Fatalf("%d players in the summary", len(r.Players))
	}
	for _, p := range r.Players {
		if p.Error != "" || p.InputsSent == 0 || p.InputsAcked == 0 || p.ParityChecks == 0 {
			t.Fatalf("player %+v did not play", p)
		}
	}
	return r
}

// TestDemoPredictLocal plays one bot through the loopback layer: no
// corrections, parity holds. The verdict depends on no timing.
func TestDemoPredictLocal(t *testing.T) {
	code, out, errOut := runCmd(t, "demo", "--mode", "predict", "--local", "--ticks", "120", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	r := checkPredictJSON(t, out, 1)
	if !r.ParityOK || r.Players[0].Corrections != 0 {
		t.Fatalf("%+v", r)
	}
}

// TestDemoPredictEndToEnd plays bots over loopback UDP with impairment
// through a server hosting the prediction model.
func TestDemoPredictEndToEnd(t *testing.T) {
	code, out, errOut := runCmd(t, "demo", "--mode", "predict", "--players", "2", "--ticks", "120", "--latency", "10ms",
		"--jitter", "3ms", "--loss", "0.02", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	r := checkPredictJSON(t, out, 2)
	if i := r.Interest; i == nil || i.SnapshotBytesPerClientS <= 0 || i.WithoutInterestPerClientS < i.SnapshotBytesPerClientS {
		t.Fatalf("interest figures %+v", r.Interest)
	}
}

// TestBotPredictAgainstServer runs "tickwire bot --mode predict" against
// servers hosting the prediction model at 20, 30 and 128 Hz: the bots
// take the tick rate (and the game's rules) from the server, with no
// --tps, and parity holds; and a join a lockstep-only server refuses.
func TestBotPredictAgainstServer(t *testing.T) {
	for _, tps := range []int{20, 30, 128} {
		scfg := server.Config{TickRate: tps, Models: []room.Model{predictionModel(0)}, DefaultModel: room.Prediction}
		tcfg, err := scfg.Transport()
		if err != nil {
			t.Fatal(err)
		}
		d, err := startLocalRelay(t.Context(), tcfg, scfg)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd(t, "bot", "--mode", "predict", "--server", d.addr.String(), "--room", "r1",
			"--players", "2", "--ticks", strconv.Itoa(tps*3/2), "--insecure", "--json")
		d.stop()
		if code != 0 {
			t.Fatalf("%d Hz: exit %d: %s\n%s", tps, code, errOut, out)
		}
		r := checkPredictJSON(t, out, 2)
		// The bug this guards: a bot built for another tick rate had every
		// snapshot refused and predicted nothing. How many ticks a bot
		// predicts in a real-time run depends on the machine's load, so
		// the check is that it predicted (and parity held, above).
		for _, p := range r.Players {
			if p.Ticks == 0 {
				t.Fatalf("%d Hz: player %d predicted no tick", tps, p.ID)
			}
		}
	}

	lockstepOnly, err := startLocalRelay(t.Context(), lanes.TransportConfig(), server.Config{Models: []room.Model{lockstepserver.Model(lockstepserver.Config{})}})
	if err != nil {
		t.Fatal(err)
	}
	defer lockstepOnly.stop()
	code, out, _ := runCmd(t, "bot", "--mode", "predict", "--server", lockstepOnly.addr.String(), "--room", "r1",
		"--players", "1", "--ticks", "30", "--insecure", "--json")
	// No match was played: the refusal is the error object, exit status 3,
	// and no summary.
	if code != exitConnect || !strings.Contains(out, `"kind":"refused"`) || strings.Contains(out, "parity_ok") {
		t.Fatalf("a lockstep-only server: exit %d, %s", code, out)
	}
}

func TestUnknownMode(t *testing.T) {
	for _, cmd := range []string{"demo", "bot"} {
		if code, _, errOut := runCmd(t, cmd, "--mode", "nope"); code != 2 || !strings.Contains(errOut, "unknown --mode") {
			t.Errorf("%s --mode nope: exit %d, %s", cmd, code, errOut)
		}
	}
}
