package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

// TestPlayersOnTickwireServe: the game's players as processes of their
// own on a stock tickwire serve, encrypted. The test builds both
// binaries, starts serve --json, reads its address and public key from
// the startup line, and runs two players with -server and -server-key:
// both play the match and end on the same state hash.
func TestPlayersOnTickwireServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two binaries")
	}
	dir := t.TempDir()
	tickwire, game := filepath.Join(dir, "tickwire"), filepath.Join(dir, "gridtactics")
	for bin, pkg := range map[string]string{tickwire: "../../cmd/tickwire", game: "."} {
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	serve := exec.CommandContext(ctx, tickwire, "serve", "--listen", "127.0.0.1:0", "--admin", "", "--json")
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Kill()
		serve.Wait()
	}()
	var up struct {
		Listen    string `json:"listen"`
		PublicKey string `json:"public_key"`
		Encrypted bool   `json:"encrypted"`
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &up) != nil || !up.Encrypted || up.PublicKey == "" {
		t.Fatalf("serve --json's startup line %q (%v)", line, err)
	}
	hash := regexp.MustCompile(`state hash (0x[0-9a-f]+)`)
	var wg sync.WaitGroup
	hashes := make([]string, 2)
	for i := range hashes {
		wg.Go(func() {
			out, err := exec.CommandContext(ctx, game, "-server", up.Listen, "-server-key", up.PublicKey, "-ticks", "60").CombinedOutput()
			m := hash.FindSubmatch(out)
			if err != nil || m == nil {
				t.Errorf("player %d: %v\n%s", i+1, err, out)
				return
			}
			hashes[i] = string(m[1])
			t.Logf("%s", out)
		})
	}
	wg.Wait()
	if hashes[0] != hashes[1] {
		t.Errorf("the players' state hashes differ: %v", hashes)
	}
}
