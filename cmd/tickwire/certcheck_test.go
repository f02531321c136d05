package main

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/records"
)

// TestCheckCertificates: a bot run's check of the match results its bots
// received, against the best attacker a server or a path can be: a
// genuine result passes against --server-key, against the key the
// handshake proved and alone; the result with a field changed, re-signed
// by the forger's own key (which verifies alone: only a known key catches
// it), or with the forger's signature under the server's key fails
// whenever the key is known; bots that received different results, or
// connections that proved different keys, fail too.
func TestCheckCertificates(t *testing.T) {
	serverPub, server, _ := ed25519.GenerateKey(nil)
	forgerPub, forger, _ := ed25519.GenerateKey(nil)
	rec := records.Record{ID: 7, Room: "r", NetworkModel: "lockstep", StartedAt: time.Unix(1e9, 0).UTC(), EndedAt: time.Unix(1e9+60, 0).UTC(),
		Ticks: 1800, Outcome: records.OutcomeFinished, Players: []records.Player{{Player: 1}, {Player: 2}}, Removals: []records.Removal{}}
	cert := func(r records.Record, key ed25519.PrivateKey, claim ed25519.PrivateKey) json.RawMessage {
		c, err := records.Certify(r, key)
		if err != nil {
			t.Fatal(err)
		}
		if claim != nil { // name claim's key over key's signature
			other, _ := records.Certify(r, claim)
			c.ServerKey = other.ServerKey
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	genuine := cert(rec, server, nil)
	lost := rec
	lost.Outcome = records.OutcomeAbandoned
	var tampered records.Certificate
	json.Unmarshal(genuine, &tampered)
	tampered.Record = lost
	tamperedJSON, _ := json.Marshal(tampered)
	resigned := cert(lost, forger, nil)     // verifies alone
	stolenKey := cert(lost, forger, server) // the forger's signature, the server's key named
	none := []ed25519.PublicKey(nil)
	for _, tc := range []struct {
		name    string
		certs   []json.RawMessage
		pinned  ed25519.PublicKey
		proven  []ed25519.PublicKey
		valid   bool
		against string
		err     string
	}{
		{"genuine, --server-key", []json.RawMessage{genuine, genuine}, serverPub, none, true, againstServerKey, ""},
		{"genuine, handshake", []json.RawMessage{genuine, nil}, nil, []ed25519.PublicKey{serverPub}, true, againstHandshake, ""},
		{"genuine, no key known", []json.RawMessage{genuine}, nil, none, true, againstCertificate, ""},
		{"tampered, no key known", []json.RawMessage{tamperedJSON}, nil, none, false, againstCertificate, "signature"},
		{"re-signed, --server-key", []json.RawMessage{resigned}, serverPub, none, false, againstServerKey, "not the expected server"},
		{"re-signed, handshake", []json.RawMessage{resigned}, nil, []ed25519.PublicKey{serverPub}, false, againstHandshake, "not the expected server"},
		{"re-signed, no key known", []json.RawMessage{resigned}, nil, none, true, againstCertificate, ""},
		{"stolen key, --server-key", []json.RawMessage{stolenKey}, serverPub, none, false, againstServerKey, "signature"},
		{"bots disagree", []json.RawMessage{genuine, resigned}, serverPub, none, false, againstServerKey, "another result"},
		{"two server keys", []json.RawMessage{genuine}, nil, []ed25519.PublicKey{serverPub, forgerPub}, false, againstCertificate, "different server keys"},
		{"not a result", []json.RawMessage{json.RawMessage(`{"record":1}`)}, serverPub, none, false, againstServerKey, "not a match result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := checkCertificates(tc.certs, tc.pinned, tc.proven)
			if c == nil || c.Valid != tc.valid || c.Against != tc.against || !strings.Contains(c.Error, tc.err) || (c.Error == "") != tc.valid {
				t.Fatalf("check %+v, want valid %v against %q with an error naming %q", c, tc.valid, tc.against, tc.err)
			}
			if (c.err() == nil) != tc.valid {
				t.Fatalf("err() %v for valid %v", c.err(), tc.valid)
			}
		})
	}
	if c := checkCertificates([]json.RawMessage{nil, nil}, serverPub, none); c != nil || c.err() != nil {
		t.Fatalf("no result received: check %+v", c)
	}
}
