package main

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

func TestUnknownModeNamesTheModes(t *testing.T) {
	for _, sub := range []string{"demo", "bot"} {
		code, _, errOut := runCmd(t, sub, "--mode", "nope")
		if code != 2 || !strings.Contains(errOut, `unknown --mode "nope" (`+modeNames(modes())+`)`) {
			t.Errorf("%s --mode nope: exit %d, %s", sub, code, errOut)
		}
	}
	if _, _, err := pickMode([]string{"--mode=nope"}); !errors.Is(err, errUsage) {
		t.Errorf("--mode=nope: %v", err)
	}
	if m, rest, err := pickMode([]string{"--players", "2"}); err != nil || m.name() != "lockstep" || len(rest) != 2 {
		t.Errorf("no --mode: %v %v %v", m, rest, err)
	}
	for _, want := range []string{"lockstep", "fogauth", "predict", "statesync", "echo"} {
		if !strings.Contains(modeNames(modes()), want) {
			t.Errorf("no mode %s in %s", want, modeNames(modes()))
		}
	}
}

// TestModesAreDistinct: every mode has its own --mode word, network
// model and settings table, and serve hosts each mode's model.
func TestModesAreDistinct(t *testing.T) {
	names, models, tables := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, m := range modes() {
		key, table := m.settings()
		if names[m.name()] || models[m.modelName()] || (table != nil && tables[key]) {
			t.Errorf("mode %s (model %s, table %q) repeats another's", m.name(), m.modelName(), key)
		}
		names[m.name()], models[m.modelName()], tables[key] = true, true, table != nil
	}
	f, err := parseServeFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.serverConfig(nil).Check(); err != nil {
		t.Fatal(err)
	}
	hosted := map[string]bool{}
	for _, m := range f.serverConfig(nil).Models {
		hosted[m.Name] = true
	}
	for name := range models {
		if !hosted[name] {
			t.Errorf("serve does not host %s", name)
		}
	}
}

// modeBotArgs are short bot runs of the modes whose bots need more than
// the default run, as "bot --mode NAME" arguments after --server and
// --room; a new mode plays the default.
var modeBotArgs = map[string][]string{
	"statesync": {"--players", "2", "--ticks", "40"},
}

// defaultBotArgs is the bot run of a mode modeBotArgs does not name.
var defaultBotArgs = []string{"--players", "2", "--ticks", "30"}

// TestServeAndRelayHostEveryMode runs "tickwire serve" and its alias
// "tickwire relay", each letting a join choose its network model, and
// plays "bot --mode NAME --json" of every mode against each at once:
// every bot run ends with its mode's verdict passed (exit 0) and one
// JSON summary.
func TestServeAndRelayHostEveryMode(t *testing.T) {
	config := writeConfig(t, "[relay]\nallow_requested_network_model = true\n")
	for _, sub := range []string{"serve", "relay"} {
		t.Run(sub, func(t *testing.T) {
			t.Parallel()
			stop, udp, _ := startServer(t, sub, "--config", config, "--exempt-loopback")
			var wg sync.WaitGroup
			for _, m := range modes() {
				wg.Go(func() {
					args := append([]string{"bot", "--mode", m.name(), "--server", udp, "--room", m.name(), "--json"}, defaultBotArgs...)
					if a, ok := modeBotArgs[m.name()]; ok {
						args = append(args[:len(args)-len(defaultBotArgs)], a...)
					}
					code, out, errOut := runCmd(t, args...)
					var summary map[string]any
					if err := json.Unmarshal([]byte(out), &summary); code != 0 || err != nil {
						t.Errorf("%s bot --mode %s: exit %d, %v\n%s\n%s", sub, m.name(), code, err, errOut, out)
					}
				})
			}
			wg.Wait()
			stop()
		})
	}
}

// TestEchoDemoEndToEnd plays "demo --mode echo" over loopback UDP with
// loss and checks its documented JSON: every bot heard every line once,
// in order.
func TestEchoDemoEndToEnd(t *testing.T) {
	code, out, errOut := runCmd(t, "demo", "--mode", "echo", "--players", "3", "--ticks", "20", "--tps", "100",
		"--latency", "5ms", "--jitter", "2ms", "--loss", "0.1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	var r struct {
		NetworkModel string           `json:"network_model"`
		Messages     int              `json:"messages"`
		Players      []map[string]any `json:"players"`
		AllEchoed    bool             `json:"all_echoed"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.NetworkModel != "echo" || r.Messages != 20 || !r.AllEchoed || len(r.Players) != 3 {
		t.Fatalf("summary %s (%v)", out, err)
	}
	for _, p := range r.Players {
		for _, k := range []string{"id", "said", "echoes", "heard", "out_of_order", "rtt_mean_ms", "rtt_max_ms"} {
			if _, ok := p[k]; !ok {
				t.Errorf("player lacks %q: %v", k, p)
			}
		}
		if p["heard"] != float64(60) {
			t.Errorf("player heard %v lines, want 60", p["heard"])
		}
	}
}
