package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/tickwire/tickwire/records"
	"github.com/tickwire/tickwire/transport"
)

// errBadResult makes a bot run fail when a match result it received does
// not verify.
var errBadResult = errors.New("the match result does not verify")

// What a bot checks a certified match result against ("against" in
// certificate_check): the key --server-key pins, else the key the server
// proved in the secure handshake (the key it signs results with), else,
// on a plaintext connection, nothing but the key the certificate names.
const (
	againstServerKey   = "server-key"
	againstHandshake   = "handshake"
	againstCertificate = "certificate"
)

var againstWords = map[string]string{
	againstServerKey:   "--server-key",
	againstHandshake:   "the key the server proved in the handshake",
	againstCertificate: "the key it names (no server key known)",
}

// certificateCheck is a bot run's verdict on the match results its bots
// received: bot --json's "certificate_check".
type certificateCheck struct {
	Valid   bool   `json:"valid"`
	Against string `json:"against"`
	Error   string `json:"error,omitempty"`
}

// serverKeys records the key the server proved on each secure connection
// of a bot run.
type serverKeys struct {
	mu   sync.Mutex
	keys []ed25519.PublicKey
}

// note records the key conn's server proved (none on a plaintext
// connection).
func (k *serverKeys) note(conn *transport.Conn) {
	cs, ok := conn.Security()
	if !ok || cs.PeerKey == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, have := range k.keys {
		if have.Equal(cs.PeerKey) {
			return
		}
	}
	k.keys = append(k.keys, cs.PeerKey)
}

// list returns the keys noted.
func (k *serverKeys) list() []ed25519.PublicKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.keys)
}

// proven is the run's record of the keys its server proved.
func (f *botCommon) proven() *serverKeys {
	if f.keys == nil {
		f.keys = &serverKeys{}
	}
	return f.keys
}

// wrap makes dial note each connection's key.
func (k *serverKeys) wrap(dial dialer) dialer {
	return func(ctx context.Context, i int) (*transport.Conn, error) {
		conn, err := dial(ctx, i)
		if err == nil {
			k.note(conn)
		}
		return conn, err
	}
}

// checkCertificates verifies every result the bots received (nil for a
// bot that received none) against pinned if set, else against the one key
// the handshakes proved, else against the key each names; every bot of
// the run must have received the same result. It is nil when no result
// came.
func checkCertificates(certs []json.RawMessage, pinned ed25519.PublicKey, proven []ed25519.PublicKey) *certificateCheck {
	first, _ := firstCertificate(certs)
	if first == nil {
		return nil
	}
	check := &certificateCheck{Against: againstCertificate}
	want := pinned
	switch {
	case pinned != nil:
		check.Against = againstServerKey
	case len(proven) == 1:
		want, check.Against = proven[0], againstHandshake
	case len(proven) > 1:
		check.Error = fmt.Sprintf("the bots' connections proved %d different server keys", len(proven))
		return check
	}
	for i, c := range certs {
		if c == nil {
			continue
		}
		if !bytes.Equal(c, first) {
			check.Error = fmt.Sprintf("bot %d received another result than the first bot", i)
			return check
		}
	}
	var c records.Certificate
	if err := json.Unmarshal(first, &c); err != nil {
		check.Error = fmt.Sprintf("not a match result: %v", err)
		return check
	}
	if err := records.Verify(c, want); err != nil {
		check.Error = err.Error()
		return check
	}
	check.Valid = true
	return check
}

// err is nil for a valid check (or none), else errBadResult naming why.
func (c *certificateCheck) err() error {
	if c == nil || c.Valid {
		return nil
	}
	return fmt.Errorf("%w: %s", errBadResult, c.Error)
}

// print says the check under a run's table.
func (c *certificateCheck) print(w io.Writer) {
	switch {
	case c == nil:
	case c.Valid:
		fmt.Fprintf(w, "match result: certified, verified against %s\n", againstWords[c.Against])
	default:
		fmt.Fprintf(w, "match result: DOES NOT VERIFY (%s)\n", c.Error)
	}
}

// pinnedKey is --server-key's key, or nil (also when malformed: the dial
// refuses it).
func (s securityFlags) pinnedKey() ed25519.PublicKey {
	k, err := hex.DecodeString(s.serverKey)
	if err != nil || len(k) != ed25519.PublicKeySize {
		return nil
	}
	return k
}
