package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogserver"
)

// TestExampleConfig: the checked-in server_config.toml loads, and its
// values reach the relay's options.
func TestExampleConfig(t *testing.T) {
	f, err := parseServeFlags([]string{"--config", filepath.Join("..", "..", "server_config.toml")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.tps != 30 || f.maxGames != 1000 || f.waitingTimeout != 2*time.Minute || f.maxWaiting != 16 || f.defaultModel != "lockstep" ||
		f.matchTypes["ranked"] != "lockstep" || fogOf(t, f).file.MaxConcurrentGames != 10 || fogOf(t, f).file.BandwidthPerClientKbps != 64 ||
		fogOf(t, f).file.MaxSpectators != 0 || fogOf(t, f).file.SpectatorFullMap {
		t.Fatalf("options %+v", f)
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server_config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigAdminToken: admin_token sets the admin address's bearer
// token; --admin-token overrides it.
func TestConfigAdminToken(t *testing.T) {
	path := writeConfig(t, "[relay]\nadmin_token = \"from-file\"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", path}, "from-file"},
		{[]string{"--config", path, "--admin-token", "from-flag"}, "from-flag"},
	} {
		f, err := parseServeFlags(c.args, io.Discard)
		if err != nil || f.adminToken != c.want {
			t.Errorf("%v: token %q, %v; want %q", c.args, f.adminToken, err, c.want)
		}
	}
}

// TestConfigSpectators: the spectator keys reach the fog model.
func TestConfigSpectators(t *testing.T) {
	path := writeConfig(t, "[relay.fogauth]\nmax_spectators = 2\nspectator_full_map = true\n")
	f, err := parseServeFlags([]string{"--config", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := fogserver.Model(fogOf(t, f).file.config(f.tps))
	if m.MaxSpectators != 2 || !m.Rejoin || !fogOf(t, f).file.config(f.tps).Room.FullMapSpectators {
		t.Fatalf("fog model: %d spectators, rejoin %v, full map %v", m.MaxSpectators, m.Rejoin, fogOf(t, f).file.config(f.tps).Room.FullMapSpectators)
	}
}

// TestConfigStalenessBonus: priority_staleness_bonus = 0 means no bonus
// (not the default 3); unset keeps the default.
func TestConfigStalenessBonus(t *testing.T) {
	for body, want := range map[string]int{
		"[relay.fogauth]\npriority_staleness_bonus = 0\n": fogauth.NoStalenessBonus,
		"[relay.fogauth]\npriority_staleness_bonus = 7\n": 7,
		"[relay.fogauth]\nmax_spectators = 1\n":           0,
	} {
		f, err := parseServeFlags([]string{"--config", writeConfig(t, body)}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if got := fogOf(t, f).file.config(f.tps).Room.StalenessBonus; got != want {
			t.Errorf("%q: StalenessBonus %d, want %d", body, got, want)
		}
	}
}

// TestConfigFlagsOverride: a flag on the command line wins over the
// file; the file wins over a flag's default.
func TestConfigFlagsOverride(t *testing.T) {
	path := writeConfig(t, "[relay]\ntick_rate = 20\nmax_games = 50\nwaiting_room_timeout = \"30s\"\n")
	f, err := parseServeFlags([]string{"--config", path, "--tps", "60"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.tps != 60 || f.maxGames != 50 || f.waitingTimeout != 30*time.Second {
		t.Fatalf("tps %d, max games %d, waiting timeout %v", f.tps, f.maxGames, f.waitingTimeout)
	}
}

// TestConfigReaders: relay.readers sets the sockets on the listen port,
// its zero value is one, and --readers overrides it.
func TestConfigReaders(t *testing.T) {
	for _, tc := range []struct {
		text string
		args []string
		want int
	}{
		{"[relay]\n", nil, 1},
		{"[relay]\nreaders = 0\n", nil, 0},
		{"[relay]\nreaders = 4\n", nil, 4},
		{"[relay]\nreaders = 4\n", []string{"--readers", "2"}, 2},
	} {
		f, err := parseServeFlags(append([]string{"--config", writeConfig(t, tc.text)}, tc.args...), io.Discard)
		if err != nil || f.readers != tc.want {
			t.Errorf("%q %v: readers %d, %v; want %d", tc.text, tc.args, f.readers, err, tc.want)
		}
	}
	if _, err := parseServeFlags([]string{"--readers", "-1"}, io.Discard); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "relay.readers") {
		t.Errorf("--readers -1: %v, want a usage error naming relay.readers", err)
	}
}

// TestConfigErrorsNameTheKey: an unknown key, a value of the wrong type
// or out of range, and an unknown network model each stop
// startup with an error naming the key.
func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[relay]\ntick_rat = 30\n", "unknown key relay.tick_rat"},
		{"[relay.fogauth]\nbandwidth = 1\n", "unknown key relay.fogauth.bandwidth"},
		{"[relay.nope]\nx = 1\n", "unknown key relay.nope"}, // no mode owns the table
		{"[relay]\nfogauth = 3\n", "relay.fogauth"},         // a mode's table that is not one
		{"[relay.prediction]\nbogus = 1\n", "unknown key relay.prediction.bogus"},
		{"[relay]\ntick_rate = \"fast\"\n", "relay.tick_rate"},
		{"[relay]\ntick_rate = 0\n", "relay.tick_rate: 0 is outside 1..1000"},
		{"[relay]\nmax_games = 0\n", "relay.max_games: 0 allows nothing"},
		{"[relay]\nwaiting_room_timeout = \"soon\"\n", "waiting_room_timeout"},
		{"[relay.match_types.ranked]\nnetwork_model = \"x\"\n", `relay.match_types.ranked.network_model: unknown network model "x"`},
		{"[relay.match_types.ranked]\n", "relay.match_types.ranked.network_model: missing network model"},
		{"[relay.fogauth]\nmax_concurrent_games = -1\n", "relay.fogauth.max_concurrent_games: -1 is negative"},
		{"[relay.fogauth]\nmax_spectators = -1\n", "relay.fogauth.max_spectators: -1 is outside 0..64"},
		{"[relay.fogauth]\nspectator_full_map = 1\n", "spectator_full_map"},
		{"[relay.fogauth]\nspectators_full_map = true\n", "unknown key relay.fogauth.spectators_full_map"},
		{"[relay.prediction]\nlate_inputs = \"drop\"\n", "relay.prediction.late_inputs"},
		{"[relay.prediction]\nsnapshot_every = -1\n", "relay.prediction.snapshot_every: -1 is outside"},
		{"[capabilities]\nrelay = false\n", "capabilities.relay"},
		{"[relay]\ndebug_level = 4\n", "relay.debug_level: 4 is outside 0..3"},
		{"[relay]\nreaders = -1\n", "relay.readers: -1 is outside 0..256"},
		{"[relay]\nreaders = \"many\"\n", "relay.readers"},
		{"[relay]\ndebug_level = \"high\"\n", "relay.debug_level"},
		{"[relay.match_types.x]\nnetwork_model = \"lockstep\"\ndebug_level = -1\n", "relay.match_types.x.debug_level: -1 is outside 0..3"},
		{"[relay\n", "server_config.toml"},
	} {
		_, err := parseServeFlags([]string{"--config", writeConfig(t, tc.text)}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error with %q", tc.text, err, tc.want)
		}
	}
	if _, err := parseServeFlags([]string{"--config", filepath.Join(t.TempDir(), "missing.toml")}, io.Discard); err == nil {
		t.Error("a missing file was accepted")
	}
	if _, err := parseServeFlags([]string{"--config", writeConfig(t, "[relay]\ndefault_network_model = \"echo\"\n")}, io.Discard); err != nil {
		t.Errorf("every mode's model is hosted, echo too: %v", err)
	}
	if _, err := parseServeFlags([]string{"--default-network-model", "fog"}, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("--default-network-model fog: %v, want a usage error", err)
	}
}

// fogOf is the fog mode f hosts, with its [relay.fogauth] settings.
func fogOf(t *testing.T, f serveFlags) *fogMode {
	t.Helper()
	for _, m := range f.modes {
		if fm, ok := m.(*fogMode); ok {
			return fm
		}
	}
	t.Fatal("serve hosts no fog mode")
	return nil
}
