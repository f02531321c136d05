package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
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
	if err != nil || sc.Identity == nil || !sc.Limits.ExemptLoopback || sc.Limits.MaxConnections != 10 {
		t.Fatalf("server config %+v %v", sc, err)
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
