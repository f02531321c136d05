package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

func TestLoadOrCreateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relay.key")
	k1, err := loadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	k2, err := loadOrCreateKey(path)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("reloaded key differs: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	os.WriteFile(path, []byte("not hex\n"), 0o600)
	if _, err := loadOrCreateKey(path); err == nil {
		t.Fatal("a corrupt key file was accepted")
	}
}

func TestSecurityFlags(t *testing.T) {
	if sc, err := (securityFlags{insecure: true}).serverConfig(10); sc != nil || err != nil {
		t.Fatalf("insecure server: %v %v", sc, err)
	}
	sc, err := (securityFlags{}).serverConfig(10)
	if err != nil || sc.Identity == nil || sc.Limits.ExemptLoopback || sc.Limits.MaxConnections != 10 {
		t.Fatalf("server config %+v %v", sc, err)
	}
	if sc, err := (securityFlags{exemptLoopback: true}).serverConfig(10); err != nil || !sc.Limits.ExemptLoopback {
		t.Fatalf("--exempt-loopback: %+v %v", sc, err)
	}
	pub := publicKeyHex(sc)
	cc, err := (securityFlags{serverKey: pub}).clientConfig()
	if err != nil || !bytes.Equal(cc.ServerKey, sc.Identity.Public().(ed25519.PublicKey)) {
		t.Fatalf("client config %+v %v", cc, err)
	}
	if _, err := (securityFlags{serverKey: hex.EncodeToString([]byte("short"))}).clientConfig(); !errors.Is(err, errUsage) {
		t.Fatalf("short key: %v", err)
	}
}

// TestLoopbackLimits: over real loopback UDP, the relay's per-address
// limit (5 connections) applies to loopback peers unless --exempt-loopback
// is given.
func TestLoopbackLimits(t *testing.T) {
	for _, exempt := range []bool{false, true} {
		sc, err := (securityFlags{exemptLoopback: exempt}).serverConfig(100)
		if err != nil {
			t.Fatal(err)
		}
		tcfg := lanes.TransportConfig()
		tcfg.Security = sc
		ln, err := listenRelay(t.Context(), "127.0.0.1:0", 1, tcfg)
		if err != nil {
			t.Fatal(err)
		}
		ccfg := lanes.TransportConfig()
		ccfg.Security = &transport.SecurityConfig{ServerKey: sc.Identity.Public().(ed25519.PublicKey)}
		var conns []*transport.Conn
		var refused error
		for range 6 {
			c, err := transport.DialUDP(t.Context(), ln.Addr().String(), ccfg)
			if err != nil {
				refused = err
				break
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			c.Close()
		}
		ln.Close()
		if exempt && refused != nil {
			t.Errorf("--exempt-loopback: connection %d refused: %v", len(conns)+1, refused)
		}
		if !exempt && (len(conns) != 5 || !errors.Is(refused, secure.ErrTooManyFromIP)) {
			t.Errorf("without --exempt-loopback: %d connections, then %v; want 5, then %v", len(conns), refused, secure.ErrTooManyFromIP)
		}
	}
}
