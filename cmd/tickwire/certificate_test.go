package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tickwire/tickwire/records"
	"github.com/tickwire/tickwire/server/room"
)

// TestBotsReceiveCertifiedResults runs "tickwire serve" with a known key
// and a match database, and one match of two bots of every network model
// into it: every bot receives the certified result when its match ends
// (certified: 2, and each player's copy is the run's), bot --json prints
// it with the bots' own check of it against --server-key
// (certificate_check) and --certificate-out saves it, it is the database's row, signed by
// the server's key, and "matches verify --key" accepts it; the same file
// tampered with, re-signed by another key, or checked against another
// server's key is refused.
func TestBotsReceiveCertifiedResults(t *testing.T) {
	dir := t.TempDir()
	keyFile, db := filepath.Join(dir, "server.key"), filepath.Join(dir, "tickwire.db")
	key, err := loadOrCreateKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	udp, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	cfg := writeConfig(t, "[relay]\nallow_requested_network_model = true\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", udp, "--admin", adm, "--db", db, "--key", keyFile, "--exempt-loopback",
			"--config", cfg}, io.Discard, io.Discard)
	}()
	defer func() { cancel(); <-done }()
	waitReady(t, "http://"+adm+"/readyz")

	files := map[string]string{}
	t.Run("models", func(t *testing.T) {
		for _, m := range []struct{ mode, model string }{
			{"lockstep", room.Lockstep}, {"fogauth", room.FogAuthoritative}, {"predict", room.Prediction},
			{"statesync", room.StateSync}, {"echo", "echo"},
		} {
			file := filepath.Join(dir, m.mode+".json")
			files[m.mode] = file
			t.Run(m.mode, func(t *testing.T) {
				t.Parallel()
				code, out, errOut := runCmd(t, "bot", "--mode", m.mode, "--server", udp, "--room", "cert-"+m.mode, "--players", "2",
					"--ticks", "30", "--server-key", pub, "--json", "--certificate-out", file)
				if code != 0 {
					t.Fatalf("bot exit %d: %s %s", code, out, errOut)
				}
				var rep struct {
					Certificate records.Certificate `json:"certificate"`
					Certified   int                 `json:"certified"`
					Check       certificateCheck    `json:"certificate_check"`
					Players     json.RawMessage     `json:"players"` // a list, or (statesync) a count
				}
				var players []struct {
					Certificate *records.Certificate `json:"certificate"`
				}
				if err := json.Unmarshal([]byte(out), &rep); err != nil {
					t.Fatalf("bot --json: %v: %s", err, out)
				}
				if strings.HasPrefix(string(rep.Players), "[") {
					if err := json.Unmarshal(rep.Players, &players); err != nil {
						t.Fatal(err)
					}
				}
				if rep.Certified != 2 {
					t.Fatalf("%d of 2 bots received the result: %s", rep.Certified, out)
				}
				if !rep.Check.Valid || rep.Check.Against != againstServerKey {
					t.Errorf("the bots' own check of the result: %+v, want valid against --server-key", rep.Check)
				}
				for i, p := range players { // the modes that list their players
					if p.Certificate == nil || !reflect.DeepEqual(*p.Certificate, rep.Certificate) {
						t.Errorf("player %d's certificate %+v is not the run's", i, p.Certificate)
					}
				}
				if err := records.Verify(rep.Certificate, key.Public().(ed25519.PublicKey)); err != nil {
					t.Fatalf("the result does not verify against the server's key: %v", err)
				}
				r := rep.Certificate.Record
				if r.NetworkModel != m.model || r.Room != "cert-"+m.mode || len(r.Players) != 2 || r.Outcome != records.OutcomeFinished || r.ID == 0 {
					t.Fatalf("certified record %+v", r)
				}
				for _, p := range r.Players {
					if len(p.PublicKey) != 2*ed25519.PublicKeySize {
						t.Errorf("player %d certified without its key", p.Player)
					}
				}
				d, err := records.OpenReadOnly(context.Background(), db)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				if row, err := d.Get(context.Background(), r.ID); err != nil || !reflect.DeepEqual(row, r) {
					t.Errorf("certified record\n%+v\nis not the database's row\n%+v (%v)", r, row, err)
				}
				if code, out, _ := runCmd(t, "matches", "verify", "--key", pub, file); code != 0 || !strings.HasPrefix(out, "valid: match") {
					t.Errorf("matches verify of the saved result: exit %d: %s", code, out)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	refuseForgedResults(t, files["lockstep"], key)
}

// refuseForgedResults: "matches verify --key" refuses the genuine result
// of file changed in any way an attacker would: a field of the record
// changed, the record re-signed by the attacker's own key (whose
// certificate verifies on its own), the attacker's signature under the
// server's key; and the genuine result checked against another key.
func refuseForgedResults(t *testing.T, file string, key ed25519.PrivateKey) {
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var genuine records.Certificate
	if err := json.Unmarshal(b, &genuine); err != nil {
		t.Fatal(err)
	}
	_, forger, _ := ed25519.GenerateKey(nil)
	otherPub, _, _ := ed25519.GenerateKey(nil)
	tampered := genuine
	tampered.Record.Outcome = records.OutcomeAbandoned
	resigned, _ := records.Certify(tampered.Record, forger)
	stolenKey := resigned
	stolenKey.ServerKey = genuine.ServerKey
	for _, tc := range []struct {
		name string
		c    records.Certificate
		key  string
	}{
		{"outcome changed", tampered, pub},
		{"re-signed by another key", resigned, pub},
		{"another signature under the server's key", stolenKey, pub},
		{"checked against another server's key", genuine, hex.EncodeToString(otherPub)},
	} {
		path := filepath.Join(t.TempDir(), "forged.json")
		b, _ := json.Marshal(tc.c)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, _ := runCmd(t, "matches", "verify", "--key", tc.key, path); code != 1 {
			t.Errorf("%s: exit %d: %s", tc.name, code, out)
		}
	}
	if err := records.Verify(resigned, nil); err != nil {
		t.Fatalf("the forger's own certificate should verify without a pinned key (it is well formed): %v", err)
	}
}

// TestSpectatorReceivesCertifiedResult: a fog-authoritative spectator
// ("bot --mode fogauth --spectate") watching a match of two bots to its
// end receives the match's certified result, the players' own, and
// verifies it against the key the server proved.
func TestSpectatorReceivesCertifiedResult(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 5 s of real time")
	}
	cfg := writeConfig(t, "[relay.fogauth]\nmax_spectators = 1\n")
	stop, udp, _ := startRelay(t, "--default-network-model", "fog_authoritative", "--exempt-loopback", "--config", cfg)
	defer stop()
	var players, spectator string
	playersDone := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(playersDone)
		code, out, errOut := runCmd(t, "bot", "--mode", "fogauth", "--server", udp, "--room", "watched", "--players", "2", "--ticks", "150", "--json")
		if code != 0 {
			t.Errorf("players exit %d: %s%s", code, out, errOut)
		}
		players = out
	})
	wg.Go(func() {
		spectator = watchWhilePlaying(t, playersDone, "bot", "--mode", "fogauth", "--server", udp, "--room", "watched", "--spectate", "--json")
	})
	wg.Wait()
	if t.Failed() {
		return
	}
	var p, s struct {
		Certificate json.RawMessage  `json:"certificate"`
		Certified   int              `json:"certified"`
		Check       certificateCheck `json:"certificate_check"`
	}
	if err := json.Unmarshal([]byte(players), &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(spectator), &s); err != nil {
		t.Fatal(err)
	}
	if s.Certified != 1 || p.Certificate == nil || string(s.Certificate) != string(p.Certificate) {
		t.Fatalf("the spectator's result (%d) %s, the players' %s", s.Certified, s.Certificate, p.Certificate)
	}
	if !s.Check.Valid || s.Check.Against != againstHandshake {
		t.Fatalf("the spectator's check %+v, want valid against the handshake's key", s.Check)
	}
}
