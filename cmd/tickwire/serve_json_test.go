package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer a server writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeJSON: "serve --json" prints one JSON line at startup with the
// addresses it listens on and the key clients pin (the --key file's),
// which also signs match results, and nothing else on standard output;
// "--check-config --json" prints the settings as one object.
func TestServeJSON(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "server.key")
	key, err := loadOrCreateKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	udp, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	args := []string{"serve", "--listen", udp, "--admin", adm, "--key", keyFile, "--json"}

	code, out, errOut := runCmd(t, append(args, "--check-config")...)
	var cfg map[string]any
	if err := json.Unmarshal([]byte(out), &cfg); code != 0 || err != nil || cfg["configuration"] != "ok" || cfg["listen"] != udp ||
		cfg["admin"] != adm || cfg["tick_rate"] != 30.0 || cfg["default_network_model"] != "lockstep" {
		t.Fatalf("--check-config --json: exit %d, %v: %s%s", code, err, out, errOut)
	}

	var stdout lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, &stdout, io.Discard) }()
	waitFor(t, "the startup line", func() bool { return strings.Contains(stdout.String(), "\n") })
	waitReady(t, "http://"+adm+"/readyz")
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exits %d", code)
	}
	dec := json.NewDecoder(strings.NewReader(stdout.String()))
	var up serveStartup
	if err := dec.Decode(&up); err != nil || dec.More() {
		t.Fatalf("standard output is not one JSON object (%v): %s", err, stdout.String())
	}
	if up.Listen != udp || up.Admin != adm || up.Dashboard != "http://"+adm+"/dashboard/" || !up.Encrypted ||
		up.PublicKey != pub || up.MatchResultKey != pub || up.TokensRequired || !slices.Contains(up.NetworkModels, "fog_authoritative") {
		t.Fatalf("startup line %+v, want the addresses %s and %s and the key %s", up, udp, adm, pub)
	}
}
