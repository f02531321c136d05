package main

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/records"
	"github.com/tickwire/tickwire/replay"
)

// TestServeRecordsReplaysThatVerify is the end-to-end run: "serve
// --replay-dir --db" hosts three bots; the match's replay appears under
// its final name, its path and hash are in the match record, "replay
// verify --key" passes (signature chain and re-simulation), "replay
// info --json" describes it, "replay play" replays it; a flipped byte, a
// cut file and another key fail verify.
func TestServeRecordsReplaysThatVerify(t *testing.T) {
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "matches.db")
	keyFile := filepath.Join(t.TempDir(), "relay.key")
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 7
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(seed)), 0o600); err != nil {
		t.Fatal(err)
	}
	pub := hex.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
	stop, udp, _ := startServer(t, "serve", "--replay-dir", dir, "--db", db, "--key", keyFile)
	code, out, errOut := runCmd(t, "bot", "--server", udp, "--room", "rp", "--players", "3", "--ticks", "150", "--server-key", pub, "--json")
	if code != 0 {
		t.Fatalf("bot exit %d: %s\n%s", code, errOut, out)
	}
	path := waitReplay(t, dir)
	stop()

	if code, out, errOut := runCmd(t, "replay", "verify", path, "--key", pub); code != 0 || !strings.Contains(out, "valid") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "replay", "info", path, "--json")
	var info replayInfo
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil {
		t.Fatalf("info: exit %d\n%s%s", code, out, errOut)
	}
	if info.NetworkModel != "lockstep" || len(info.Players) != 3 || !info.Finished || info.Footer == nil || info.Footer.Ticks < 150 ||
		info.RelayKey != pub || info.SyncHashes == 0 || info.Players[0].PublicKey == "" {
		t.Fatalf("info: %+v", info)
	}
	if code, out, errOut := runCmd(t, "replay", "play", path, "--speed", "0"); code != 0 || !strings.Contains(out, "all match") {
		t.Fatalf("play: exit %d\n%s%s", code, out, errOut)
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := records.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ms, err := d.List(ctx, 10)
	if err != nil || len(ms) != 1 {
		t.Fatalf("records: %v %+v", err, ms)
	}
	if sum := sha256.Sum256(b); ms[0].ReplayFile != path || ms[0].ReplayHash != hex.EncodeToString(sum[:]) {
		t.Fatalf("record's replay %q %s, file %s", ms[0].ReplayFile, ms[0].ReplayHash, path)
	}

	bad := func(name string, content []byte, want string, args ...string) {
		t.Helper()
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCmd(t, append([]string{"replay", "verify", p}, args...)...)
		if code != 1 || !strings.Contains(out+errOut, want) {
			t.Fatalf("verify %s: exit %d, want 1 and %q\n%s%s", name, code, want, out, errOut)
		}
	}
	flipped := append([]byte(nil), b...)
	flipped[len(b)*2/3] ^= 0x20
	bad("flipped", flipped, "tick ")
	// Cut near the middle, inside a record (a cut on a record's boundary
	// is an unfinished file, not a truncated one).
	cut := len(b) / 2
	for ; cut < len(b); cut++ {
		if _, err := replay.Read(b[:cut]); errors.Is(err, replay.ErrTruncated) {
			break
		}
	}
	bad("cut", b[:cut], "truncated")
	other := hex.EncodeToString(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey))
	bad("other-key", b, "signed by another key", "--key", other)
}

// waitReplay waits for the one finished replay in dir: the match has
// ended.
func waitReplay(t *testing.T, dir string) string {
	t.Helper()
	var m []string
	waitFor(t, "a finished replay in "+dir, func() bool {
		m, _ = filepath.Glob(filepath.Join(dir, "*.twrp"))
		return len(m) == 1
	})
	return m[0]
}

// TestReplayDirConfig: relay.replay_dir sets the directory, the flag
// overrides it, and a bad value is an error naming the key.
func TestReplayDirConfig(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	path := writeConfig(t, "[relay]\nreplay_dir = \""+dir+"\"\n")
	f, err := parseServeFlags([]string{"--config", path}, io.Discard)
	if err != nil || f.rep.dir != dir || f.rep.key == nil {
		t.Fatalf("replay_dir: %q, key %v, %v", f.rep.dir, f.rep.key != nil, err)
	}
	if f, err := parseServeFlags([]string{"--config", path, "--replay-dir", other}, io.Discard); err != nil || f.rep.dir != other {
		t.Fatalf("--replay-dir over the file: %q, %v", f.rep.dir, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", writeConfig(t, "[relay]\nreplay_dir = \"\"\n")}, "relay.replay_dir: empty"},
		{[]string{"--config", writeConfig(t, "[relay]\nreplay_dir = 3\n")}, "replay_dir"},
		{[]string{"--config", writeConfig(t, "[relay]\nreplay_dir = \""+filepath.Join(dir, "none")+"\"\n")}, "relay.replay_dir"},
		{[]string{"--replay-dir", filepath.Join(dir, "none")}, "--replay-dir"},
	} {
		if _, err := parseServeFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}
