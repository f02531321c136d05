package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/server/room"
)

func TestFogFlags(t *testing.T) {
	if _, err := parseFogDemoFlags([]string{"--units", "0"}, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("--units 0: %v", err)
	}
	if _, err := parseFogBotFlags([]string{"--server", "x:1", "--room", "r", "--players", "2", "--ticks", "5", "--room-size", "1"}, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("--room-size below --players: %v", err)
	}
	if _, err := parseFogBotFlags([]string{"--server", "x:1", "--room", "r", "--spectate", "--reconnect-after", "5"}, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("--spectate with --reconnect-after: %v", err)
	}
	if f, err := parseFogBotFlags([]string{"--server", "x:1", "--room", "r", "--spectate"}, io.Discard); err != nil || f.players != 1 {
		t.Errorf("--spectate: %+v, %v", f, err)
	}
}

// TestFogDemoEndToEnd plays a short fog-authoritative demo over loopback
// UDP with 10% loss and checks the JSON summary: its verdict is every
// client's consistency with the server's truth, not any timing.
func TestFogDemoEndToEnd(t *testing.T) {
	code, out, errOut := runCmd(t, "demo", "--mode", "fogauth", "--players", "2", "--ticks", "90", "--units", "20",
		"--latency", "10ms", "--jitter", "3ms", "--loss", "0.1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, k := range []string{"server_tick_p99_ms", "server_cost_excl_sim_p99_us", "network_model", "players"} {
		if _, ok := r[k]; !ok {
			t.Errorf("summary lacks %s: %s", k, out)
		}
	}
	if r["network_model"] != "fog_authoritative" {
		t.Errorf("network_model %v", r["network_model"])
	}
	players, _ := r["players"].([]any)
	if len(players) != 2 {
		t.Fatalf("players: %s", out)
	}
	for _, p := range players {
		pm := p.(map[string]any)
		for _, k := range []string{"id", "ticks", "entities_tracked", "updates_received", "bytes_down_per_s", "bytes_up_per_s",
			"enters", "updates", "leaves", "snaps", "max_stale_ticks", "consistent"} {
			if _, ok := pm[k]; !ok {
				t.Errorf("player lacks %s: %v", k, pm)
			}
		}
		if pm["consistent"] != true {
			t.Errorf("player %v not consistent", pm["id"])
		}
	}
}

// TestFogBotReconnects runs "tickwire relay" hosting fog rooms and
// "tickwire bot --mode fogauth --reconnect-after 20": each bot drops its
// connection at tick 20, rejoins its seat, plays on and ends consistent.
// A spectator of a room that is not playing is refused.
func TestFogBotReconnects(t *testing.T) {
	stop, udp, _ := startRelay(t, "--default-network-model", "fog_authoritative")
	code, out, errOut := runCmd(t, "bot", "--mode", "fogauth", "--server", udp, "--room", "back", "--players", "2",
		"--ticks", "60", "--reconnect-after", "20", "--json")
	if code != 0 {
		t.Fatalf("bot exit %d: %s\n%s", code, errOut, out)
	}
	var r fogclient.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(r.Players) != 2 || !r.AllConsistent {
		t.Fatalf("summary %s", out)
	}
	for _, p := range r.Players {
		if p.Rejoins != 1 || !p.Consistent || p.Ticks < 60 {
			t.Errorf("player %+v", p)
		}
	}
	code, out, _ = runCmd(t, "bot", "--mode", "fogauth", "--server", udp, "--room", "nobody", "--spectate", "--json")
	if code == 0 || !strings.Contains(out, "room not playing") && !strings.Contains(out, "not playing") {
		t.Errorf("spectating an empty room: exit %d, %s", code, out)
	}
	stop()
}

// TestFogBotCheat runs "tickwire bot --mode fogauth --cheat" against
// "tickwire relay": hostile bots probe hidden ids, build cells they cannot
// see and attacks on targets they do not hold, and the JSON reports how
// many hidden entities the answers revealed: 0.
func TestFogBotCheat(t *testing.T) {
	stop, udp, _ := startRelay(t, "--default-network-model", "fog_authoritative")
	code, out, errOut := runCmd(t, "bot", "--mode", "fogauth", "--server", udp, "--room", "cheat", "--players", "2",
		"--ticks", "90", "--cheat", "--json")
	if code != 0 {
		t.Fatalf("bot exit %d: %s\n%s", code, errOut, out)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if n, ok := r["inferred_hidden_entities"].(float64); !ok || n != 0 {
		t.Fatalf("inferred_hidden_entities %v: %s", r["inferred_hidden_entities"], out)
	}
	for _, p := range r["players"].([]any) {
		pm := p.(map[string]any)
		if pm["probes"].(float64) < 50 || pm["inferred_hidden_entities"].(float64) != 0 || pm["consistent"] != true {
			t.Errorf("player %v", pm)
		}
	}
	if _, err := parseFogBotFlags([]string{"--server", "x:1", "--room", "r", "--spectate", "--cheat"}, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("--cheat with --spectate: %v", err)
	}
	stop()
}

// TestRelayFogConfig: the [relay.fogauth] keys reach the fog model, and a
// value the model cannot use stops startup with an error naming the key.
func TestRelayFogConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f, err := parseServeFlags([]string{"--config", write("[relay.fogauth]\nbandwidth_per_client_kbps = 32\nmax_concurrent_games = 3\n")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c := fogOf(t, f).file.config(f.tps); c.Room.BandwidthPerClientKbps != 32 || c.MaxConcurrentGames != 3 || c.Room.TickRate != 30 {
		t.Fatalf("fog config %+v", c)
	}
	fog := slices.IndexFunc(f.serverConfig(nil).Models, func(m room.Model) bool { return m.Name == room.FogAuthoritative })
	if fog < 0 || f.serverConfig(nil).Models[fog].MaxRooms != 3 {
		t.Fatalf("no fog model with max_concurrent_games 3 in %+v", f.serverConfig(nil).Models)
	}
	_, err = parseServeFlags([]string{"--config", write("[relay.fogauth]\nbandwidth_per_client_kbps = 1\n")}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "bandwidth_per_client_kbps") {
		t.Fatalf("a 1 KiB/s budget: %v", err)
	}
}
