package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/transport"
)

// securityFlags are the transport-security options of relay, bot and demo.
// Connections are authenticated and encrypted (transport.Config.Security)
// unless --insecure is given; both ends must agree.
type securityFlags struct {
	insecure  bool
	keyFile   string // relay: its identity
	serverKey string // bot: the relay key to pin, hex
}

func (s *securityFlags) addInsecure(fs *flag.FlagSet) {
	fs.BoolVar(&s.insecure, "insecure", false, "plaintext connections, no handshake or encryption (both ends must agree)")
}

func (s *securityFlags) addServer(fs *flag.FlagSet) {
	s.addInsecure(fs)
	fs.StringVar(&s.keyFile, "key", "", "file with the relay's Ed25519 identity (hex seed), created if missing; empty: a new identity each run")
}

func (s *securityFlags) addClient(fs *flag.FlagSet) {
	s.addInsecure(fs)
	fs.StringVar(&s.serverKey, "server-key", "", "the relay's public key (hex) to pin; empty: accept any")
}

// serverConfig is the relay side: its identity and connection limits.
// Loopback peers skip the per-address limits, so local bots can fill rooms.
func (s securityFlags) serverConfig(maxConns int) (*transport.SecurityConfig, error) {
	if s.insecure {
		return nil, nil
	}
	var id ed25519.PrivateKey
	var err error
	if s.keyFile == "" {
		_, id, err = ed25519.GenerateKey(rand.Reader)
	} else {
		id, err = loadOrCreateKey(s.keyFile)
	}
	if err != nil {
		return nil, err
	}
	return &transport.SecurityConfig{Identity: id,
		Limits: secure.Limits{MaxConnections: maxConns, ExemptLoopback: true}}, nil
}

// clientConfig is the bot side: a fresh identity per connection and the
// pinned relay key, if any.
func (s securityFlags) clientConfig() (*transport.SecurityConfig, error) {
	if s.insecure {
		return nil, nil
	}
	sc := &transport.SecurityConfig{}
	if s.serverKey != "" {
		k, err := hex.DecodeString(s.serverKey)
		if err != nil || len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("%w: --server-key must be %d hex-encoded bytes", errUsage, ed25519.PublicKeySize)
		}
		sc.ServerKey = k
	}
	return sc, nil
}

// publicKeyHex is how a relay prints its key for clients to pin.
func publicKeyHex(sc *transport.SecurityConfig) string {
	if sc == nil {
		return ""
	}
	return hex.EncodeToString(sc.Identity.Public().(ed25519.PublicKey))
}

// loadOrCreateKey reads an Ed25519 seed (hex) from path, or creates the
// file with a new one, written atomically and readable by its owner only.
func loadOrCreateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("key file %s: want %d hex-encoded bytes", path, ed25519.SeedSize)
		}
		return ed25519.NewKeyFromSeed(seed), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	seed := make([]byte, ed25519.SeedSize)
	rand.Read(seed)
	if err := writeFileAtomic(path, []byte(hex.EncodeToString(seed)+"\n"), 0o600); err != nil {
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// writeFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so a reader never sees a partial file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(perm), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
