package main

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestBotFlags(t *testing.T) {
	f, err := parseBotFlags([]string{"--server", "127.0.0.1:7777", "--room", "r", "--players", "2", "--ticks", "90"}, io.Discard)
	if err != nil || f.roomSize != 2 || f.games != 1 || f.json || f.light {
		t.Fatalf("parsed %+v, %v", f, err)
	}
	f, err = parseBotFlags([]string{"--server", "a:1", "--room", "r", "--players", "2", "--ticks", "9", "--room-size", "4", "--json"}, io.Discard)
	if err != nil || f.roomSize != 4 || !f.json {
		t.Fatalf("parsed %+v, %v", f, err)
	}
	for _, bad := range [][]string{
		{"--room", "r", "--players", "2", "--ticks", "9"},     // no server
		{"--server", "a:1", "--players", "2", "--ticks", "9"}, // no room
		{"--server", "a:1", "--room", "r", "--ticks", "9"},    // no players
		{"--server", "a:1", "--room", "r", "--players", "2"},  // no ticks
		{"--server", "a:1", "--room", "r", "--players", "3", "--ticks", "9", "--room-size", "2"},
	} {
		if _, err := parseBotFlags(bad, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}

// botJSONFields are the documented fields of "bot --json" and "demo --json".
var botJSONFields = []string{"id", "ticks", "orders_sent", "late_orders", "strikes", "final_hash", "desyncs",
	"rtt_p50_ms", "rtt_p99_ms", "tick_gap_p99_ms", "run_ahead", "bytes_up_per_s", "bytes_down_per_s",
	"clock_correction_ms", "clock_drift_ppm", "clock_steps", "reconnects", "reconnect_ms"}

// checkBotJSON asserts out is exactly one bot summary object of players
// players, all in sync, and returns the players.
func checkBotJSON(t *testing.T, out string, players int) []map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var r struct {
		Players      []map[string]any `json:"players"`
		AllInSync    *bool            `json:"all_in_sync"`
		NetworkModel string           `json:"network_model"`
	}
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("output is not a JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value:\n%s", out)
	}
	if r.AllInSync == nil || !*r.AllInSync {
		t.Fatalf("all_in_sync missing or false:\n%s", out)
	}
	if len(r.Players) != players {
		t.Fatalf("%d players, want %d", len(r.Players), players)
	}
	if r.NetworkModel != "lockstep" {
		t.Errorf("network_model %q, want lockstep", r.NetworkModel)
	}
	hash := r.Players[0]["final_hash"]
	for _, p := range r.Players {
		for _, k := range botJSONFields {
			if _, ok := p[k]; !ok {
				t.Errorf("player lacks %q", k)
			}
		}
		if p["final_hash"] != hash {
			t.Errorf("final hashes differ: %v %v", p["final_hash"], hash)
		}
	}
	return r.Players
}

// TestRelayAndBot runs "tickwire relay" and two bots of one room in two
// "tickwire bot" runs (--room-size), then checks their summaries agree.
func TestRelayAndBot(t *testing.T) {
	stop, udp, _ := startRelay(t)
	type result struct {
		code     int
		out, err string
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			code, out, errOut := runCmd(t, "bot", "--server", udp, "--room", "e2e", "--players", "1", "--room-size", "2",
				"--ticks", "60", "--json")
			results <- result{code, out, errOut}
		}()
	}
	var hashes []any
	for range 2 {
		r := <-results
		if r.code != 0 {
			t.Fatalf("bot exit %d: %s\n%s", r.code, r.err, r.out)
		}
		hashes = append(hashes, checkBotJSON(t, r.out, 1)[0]["final_hash"])
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("the two processes' bots ended with hashes %v", hashes)
	}
	stop()
}
