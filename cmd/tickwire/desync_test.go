package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestConfigDebugLevel: relay.debug_level and desync_dir reach the
// lockstep rooms' options, a match type's debug_level overrides it, a
// flag overrides the file, and an out-of-range flag is refused (the
// file's bad levels are in TestConfigErrorsNameTheKey).
func TestConfigDebugLevel(t *testing.T) {
	path := writeConfig(t, "[relay]\ndebug_level = 1\ndesync_dir = \"reports\"\n[relay.match_types.hunt]\nnetwork_model = \"lockstep\"\ndebug_level = 3\n")
	f, err := parseServeFlags([]string{"--config", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.debugLevel != 1 || f.desyncDir != "reports" || f.matchDebug["hunt"] != 3 {
		t.Fatalf("debug level %d, dir %q, by match type %v", f.debugLevel, f.desyncDir, f.matchDebug)
	}
	if f, err = parseServeFlags([]string{"--config", path, "--debug-level", "2"}, io.Discard); err != nil || f.debugLevel != 2 {
		t.Fatalf("--debug-level 2 over the file: %d, %v", f.debugLevel, err)
	}
	if _, err := parseServeFlags([]string{"--debug-level", "9"}, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("--debug-level 9: %v", err)
	}
}

// TestDesyncDrillAndReplay runs "demo --inject-desync" at debug level 1:
// it succeeds, its report (in --desync-dir) names the injected entity and
// field, and "desync replay" finds the corrupted player's first bad tick
// in its order log, and no bad tick in another's.
func TestDesyncDrillAndReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time match")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"--inject-desync", "--desync-dir", dir, "--debug-level", "1", "--players", "3", "--ticks", "180", "--tps", "60", "--latency", "5ms", "--loss", "0", "--json"}
	if err := runLockstepDemo(t.Context(), args, &out, io.Discard); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	var rep struct {
		Players []struct {
			ID             int    `json:"id"`
			OrderLog       string `json:"order_log"`
			DesyncReport   string `json:"desync_report"`
			InjectedDesync *struct {
				Tick uint64 `json:"tick"`
			} `json:"injected_desync"`
		} `json:"players"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Players {
		if _, err := os.Stat(filepath.Join(dir, p.DesyncReport)); err != nil || p.OrderLog == "" {
			t.Fatalf("player %d: report %q (%v), order log %q", p.ID, p.DesyncReport, err, p.OrderLog)
		}
		var buf bytes.Buffer
		err := runDesync(t.Context(), []string{"replay", p.OrderLog, "--json"}, &buf, io.Discard)
		var res replayJSON
		if jerr := json.Unmarshal(buf.Bytes(), &res); jerr != nil {
			t.Fatalf("player %d: %v: %s", p.ID, jerr, buf.String())
		}
		if p.InjectedDesync == nil {
			if err != nil || res.Diverged {
				t.Errorf("player %d: an honest log diverges: %+v %v", p.ID, res, err)
			}
			continue
		}
		if !errors.Is(err, errDiverged) || !res.Diverged || res.FirstBadTick != p.InjectedDesync.Tick {
			t.Errorf("player %d corrupted at %d: %+v %v", p.ID, p.InjectedDesync.Tick, res, err)
		}
	}
}
