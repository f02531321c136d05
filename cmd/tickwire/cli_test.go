package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/internal/loopback"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// The binary as people run it: the tests here build cmd/tickwire and
// run it as a process, reading its exit status, standard error and
// standard output.

// builtBinary is the path of the tickwire binary, built once per test
// process (TestMain removes it: removeBuiltBinary).
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// removeBuiltBinary removes the binary tickwireBinary built, if any
// (TestMain calls it after the tests).
func removeBuiltBinary() {
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
}

// tickwireBinary builds the binary (once) and returns its path.
func tickwireBinary(t *testing.T) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "tickwire-cli"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "tickwire")
		cmd := exec.Command("go", "build", "-o", b.path, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as CI builds it: the build cache serves
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = errors.New(string(out))
		}
	})
	if b.err != nil {
		t.Fatalf("go build: %v", b.err)
	}
	return b.path
}

// runBinary runs the binary with args and returns its exit status, its
// standard output and error, and how long it ran.
func runBinary(t *testing.T, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tickwireBinary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String(), took
	case err != nil:
		t.Fatalf("tickwire %v: %v", args, err)
	}
	return 0, out.String(), errOut.String(), took
}

// secureRelay serves models on a loopback socket with a new identity
// (and, if mm is not nil, admits only players with mm's tokens) until
// the test ends; it returns the address and the server's public key.
func secureRelay(t *testing.T, mm ed25519.PublicKey, models ...room.Model) (string, string) {
	t.Helper()
	_, id, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{Models: models}
	tcfg, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	tcfg.Security = &transport.SecurityConfig{Identity: id, Matchmaker: mm, Limits: secure.Limits{ExemptLoopback: true}}
	d, err := startLocalRelay(t.Context(), tcfg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.stop)
	return d.addr.String(), hex.EncodeToString(id.Public().(ed25519.PublicKey))
}

// fillRoom plays a lockstep room of one player at addr with a light bot
// of this process, so the room is full, until the test ends.
func fillRoom(t *testing.T, addr, key, roomName string) {
	t.Helper()
	k, _ := hex.DecodeString(key)
	tcfg := lanes.TransportConfig()
	tcfg.Security = &transport.SecurityConfig{ServerKey: k}
	ctx, cancel := context.WithCancel(t.Context())
	joined := make(chan error, 1)
	join := func(ctx context.Context, _ int) (lockstepbot.Client, error) {
		conn, err := transport.DialUDP(ctx, addr, tcfg)
		if err == nil {
			var c lockstepbot.Client
			c, err = joinRoom(ctx, conn, roomName, 1)
			joined <- err
			return c, err
		}
		joined <- err
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		lockstepbot.Run(ctx, lockstepbot.Config{Players: 1, RoomSize: 1, Ticks: 1 << 40, Light: true, Join: join})
	}()
	t.Cleanup(func() { cancel(); <-done })
	if err := <-joined; err != nil {
		t.Fatal(err)
	}
}

// otherVersionServer answers every secure Hello as a server of
// handshake version 2 would (a Refuse of its version for RefuseVersion),
// and every plaintext datagram as a server of datagram version 3 would
// (a version refusal: 3, FF, the connection id, its hello version 1).
func otherVersionServer(t *testing.T) string {
	return loopback.Responder(t, func(b []byte) []byte {
		switch {
		case len(b) == secure.HelloSize && b[0] == 0xE1:
			refuse := append([]byte{0xE6, 2}, b[2:2+secure.NonceSize]...)
			return append(refuse, byte(secure.RefuseVersion))
		case len(b) >= 10 && b[0] == transport.DatagramVersion:
			return append([]byte{3, 0xFF}, append(b[2:6:6], 0, 1)...)
		}
		return nil
	})
}

// TestFailuresNameTheirCause runs the binary for each way a new user
// fails (no server on the port, a host name that does not resolve, a
// wrong --server-key, a full room, the wrong network model, a token the
// server refuses, a server of another protocol version, a misspelt flag,
// a bad configuration file) and checks the first line of the message,
// the exit status, that no summary is printed, and with --json the error
// object on standard output. The closed port fails at once, with the
// ICMP error: its kind is "unreachable", which only the ICMP error gives
// (the handshake timeout would give "timeout"); the kind, not the time
// taken, is the verdict, so a loaded machine changes nothing.
func TestFailuresNameTheirCause(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tickwireBinary(t)
	lockstep := lockstepserver.Model(lockstepserver.Config{})
	mainAddr, mainKey := secureRelay(t, nil, lockstep)
	fogAddr, fogKey := secureRelay(t, nil, fogserver.Model(fogserver.Config{NewGame: rtsFog}))
	_, mm, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	tokenAddr, tokenKey := secureRelay(t, mm.Public().(ed25519.PublicKey), lockstep)
	fillRoom(t, mainAddr, mainKey, "full")
	dir := t.TempDir()

	// A token for the right server, room and player, signed by a
	// matchmaker the server does not trust.
	identity := filepath.Join(dir, "bot.key")
	botID, err := loadOrCreateKey(identity)
	if err != nil {
		t.Fatal(err)
	}
	_, stranger, _ := ed25519.GenerateKey(nil)
	srvKey, _ := hex.DecodeString(tokenKey)
	tok, err := secure.IssueToken(stranger, secure.Token{Server: srvKey, Player: botID.Public().(ed25519.PublicKey),
		Room: secure.RoomID("ranked"), Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	badConfig := filepath.Join(dir, "server.toml")
	if err := os.WriteFile(badConfig, []byte("[relay]\ntick_rate = 30\nmax_gamez = 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	closed, oldAddr := loopback.ClosedUDP(t), otherVersionServer(t)
	otherKey := strings.Repeat("ab", ed25519.PublicKeySize)
	bot := func(addr string, more ...string) []string {
		return append([]string{"bot", "--server", addr, "--players", "1", "--ticks", "10"}, more...)
	}
	cases := []struct {
		name      string
		args      []string
		code      int
		kind      string
		firstLine string
		noJSON    bool // the command has no --json
	}{
		{"closed port", bot(closed, "--room", "x"), exitConnect, "unreachable",
			"tickwire bot: " + closed + " refused the connection: nothing listens on that UDP port", false},
		{"bad host name", bot("no-such-host.invalid:7777", "--room", "x"), exitConnect, "resolve",
			`tickwire bot: cannot resolve "no-such-host.invalid": no such host`, false},
		{"wrong server key", bot(mainAddr, "--room", "x", "--server-key", otherKey), exitConnect, "server-key",
			"tickwire bot: the server at " + mainAddr + " proves another key than --server-key", false},
		{"full room", bot(mainAddr, "--room", "full", "--server-key", mainKey), exitConnect, "refused",
			`tickwire bot: the server refused the join: room full: room "full" has all its 1 players`, false},
		{"wrong model", bot(fogAddr, "--room", "x", "--server-key", fogKey), exitConnect, "refused",
			`tickwire bot: the server refused the join: network model unavailable: this server does not host the "lockstep" network model`, false},
		{"bad token", bot(tokenAddr, "--room", "ranked", "--server-key", tokenKey, "--identity", identity, "--token", hex.EncodeToString(tok)),
			exitConnect, "refused", "tickwire bot: the server refused the connection: connect token signature invalid", false},
		{"other version", bot(oldAddr, "--room", "x"), exitConnect, "version",
			"tickwire bot: " + oldAddr + " speaks another protocol version: the server speaks handshake version 2, this client 1", false},
		{"other version, --insecure", bot(oldAddr, "--room", "x", "--insecure"), exitConnect, "version",
			"tickwire bot: " + oldAddr + " speaks another protocol version: the server speaks datagram version 3 (hello 1), this client 2 (hello 1)", false},
		{"unknown flag", []string{"bot", "--server", mainAddr, "--room", "x", "--player", "2", "--ticks", "10"}, exitUsage, "usage",
			"tickwire bot: unknown flag --player; did you mean --players?", false},
		{"bad config", []string{"serve", "--config", badConfig, "--check-config"}, exitUsage, "config",
			"tickwire serve: " + badConfig + ": unknown key relay.max_gamez", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut, _ := runBinary(t, tc.args...)
			first, _, _ := strings.Cut(errOut, "\n")
			if code != tc.code || !strings.HasPrefix(first, tc.firstLine) {
				t.Fatalf("exit %d, first line %q; want exit %d, %q\nstderr:\n%s", code, first, tc.code, tc.firstLine, errOut)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") > 1 || out != "" {
				t.Errorf("more than the line and a hint: stdout %q, stderr %q", out, errOut)
			}
			if tc.noJSON {
				return
			}
			// --json: the same failure as an object on standard output.
			code, out, _, _ = runBinary(t, append(tc.args, "--json")...)
			var got struct {
				Error struct{ Kind, Message, Hint string }
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || code != tc.code {
				t.Fatalf("--json: exit %d, stdout %q: %v", code, out, err)
			}
			prefix := strings.SplitN(tc.args[0], " ", 2)[0]
			if got.Error.Kind != tc.kind || "tickwire "+prefix+": "+got.Error.Message != first {
				t.Errorf("--json error %+v, want kind %q and the message of %q", got.Error, tc.kind, first)
			}
		})
	}
}
