package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// TestTokenCommand: "token --public" prints the matchmaker's key, and a
// minted token verifies against it for the relay, room and player given.
func TestTokenCommand(t *testing.T) {
	dir := t.TempDir()
	mmFile, botFile := filepath.Join(dir, "mm.key"), filepath.Join(dir, "bot.key")
	relayKey := hex.EncodeToString(seedKey(9).Public().(ed25519.PublicKey))
	code, out, errOut := runCmd(t, "token", "--key", mmFile, "--public")
	if code != 0 {
		t.Fatalf("token --public: exit %d: %s", code, errOut)
	}
	mm, err := hex.DecodeString(strings.TrimSpace(out))
	if err != nil || len(mm) != ed25519.PublicKeySize {
		t.Fatalf("public key %q", out)
	}
	bot, err := loadOrCreateKey(botFile)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "token", "--key", mmFile, "--server-key", relayKey, "--room", "ranked", "--player-key", botFile, "--ttl", "1m")
	if code != 0 {
		t.Fatalf("token: exit %d: %s", code, errOut)
	}
	tok, err := hex.DecodeString(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("token %q: %v", out, err)
	}
	v, err := secure.VerifyToken(tok, mm, seedKey(9).Public().(ed25519.PublicKey), time.Now())
	if err != nil || !v.ForRoom("ranked") || !v.Player.Equal(bot.Public()) {
		t.Fatalf("token %+v: %v", v, err)
	}
	for _, bad := range [][]string{{"--key", mmFile}, {"--key", mmFile, "--server-key", "00", "--room", "r", "--player-key", botFile}, {"--public"}} {
		if code, _, _ := runCmd(t, append([]string{"token"}, bad...)...); code != 2 {
			t.Errorf("token %v: exit %d, want 2", bad, code)
		}
	}
}

func seedKey(b byte) ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = b
	return ed25519.NewKeyFromSeed(seed)
}

// TestRelayRequiresTokens runs "tickwire relay --matchmaker-key": a bot
// with a token for its room plays, a bot with a token for another room is
// refused with the reason, and the refusal is on /metrics.
func TestRelayRequiresTokens(t *testing.T) {
	dir := t.TempDir()
	relayFile, mmFile, botFile := filepath.Join(dir, "relay.key"), filepath.Join(dir, "mm.key"), filepath.Join(dir, "bot.key")
	relayID, err := loadOrCreateKey(relayFile)
	if err != nil {
		t.Fatal(err)
	}
	relayKey := hex.EncodeToString(relayID.Public().(ed25519.PublicKey))
	_, mm, _ := runCmd(t, "token", "--key", mmFile, "--public")
	stop, udp, adm := startRelay(t, "--key", relayFile, "--matchmaker-key", strings.TrimSpace(mm))
	mint := func(room string) string {
		code, out, errOut := runCmd(t, "token", "--key", mmFile, "--server-key", relayKey, "--room", room, "--player-key", botFile)
		if code != 0 {
			t.Fatalf("token: exit %d: %s", code, errOut)
		}
		return strings.TrimSpace(out)
	}
	if _, err := loadOrCreateKey(botFile); err != nil {
		t.Fatal(err)
	}
	bot := func(token string) (int, string) {
		code, out, errOut := runCmd(t, "bot", "--server", udp, "--server-key", relayKey, "--room", "ranked", "--players", "1",
			"--ticks", "30", "--identity", botFile, "--token", token, "--json")
		return code, out + errOut // a bot's error is in the summary
	}
	if code, errOut := bot(mint("ranked")); code != 0 {
		t.Fatalf("bot with a token for its room: exit %d: %s", code, errOut)
	}
	if code, errOut := bot(mint("casual")); code == 0 || !strings.Contains(errOut, "connect token") {
		t.Fatalf("bot with a token for another room: exit %d: %s", code, errOut)
	}
	_, body := httpGet(t, "http://"+adm+"/metrics")
	if !strings.Contains(body, `tickwire_relay_token_refusals_total{reason="wrong_room"} 1`) {
		t.Errorf("/metrics lacks the wrong-room refusal:\n%s", grepLines(body, "token"))
	}
	// The game played: its frames are in the lateness histogram, and the
	// by-kind counters are listed.
	for _, want := range []string{`tickwire_relay_broadcast_lateness_seconds_bucket{le="0.1"} `, `tickwire_relay_malformed_messages_total{kind="malformed"} 0`,
		`tickwire_relay_rejected_messages_total{kind="tick"} `} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, "tickwire_relay_broadcast_lateness_seconds_count 0\n") {
		t.Error("no tick frame in the lateness histogram")
	}
	code, out, errOut := runCmd(t, "bot", "--server", udp, "--server-key", relayKey, "--room", "ranked", "--players", "1", "--ticks", "30", "--json")
	if code == 0 || !strings.Contains(out+errOut, "token required") {
		t.Fatalf("bot without a token: exit %d: %s%s", code, out, errOut)
	}
	_, body = httpGet(t, "http://"+adm+"/metrics")
	if !strings.Contains(body, `tickwire_relay_handshakes_refused_total{reason="token_required"} 1`) {
		t.Errorf("/metrics lacks the handshake refusal:\n%s", grepLines(body, "refused"))
	}
	stop()
}

func grepLines(s, sub string) string {
	var out []string
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// TestMatchmakerKeyNeedsSecurity: --matchmaker-key with --insecure is a
// usage error, and a malformed key is one too.
func TestMatchmakerKeyNeedsSecurity(t *testing.T) {
	key := hex.EncodeToString(seedKey(1).Public().(ed25519.PublicKey))
	if _, err := (securityFlags{insecure: true, matchmakerKey: key}).serverConfig(10); !errors.Is(err, errUsage) {
		t.Errorf("--insecure --matchmaker-key: %v", err)
	}
	if _, err := (securityFlags{matchmakerKey: "abcd"}).serverConfig(10); !errors.Is(err, errUsage) {
		t.Errorf("short key: %v", err)
	}
	sc, err := (securityFlags{matchmakerKey: key}).serverConfig(10)
	if err != nil || hex.EncodeToString(sc.Matchmaker) != key {
		t.Fatalf("server config %+v, %v", sc, err)
	}
	if _, err := (securityFlags{token: strings.Repeat("00", secure.TokenSize)}).clientConfig(); !errors.Is(err, errUsage) {
		t.Errorf("--token without --identity: %v", err)
	}
	if _, err := parseServeFlags([]string{"--matchmaker-key", key, "--exempt-loopback"}, io.Discard); err != nil {
		t.Errorf("relay flags: %v", err)
	}
}
