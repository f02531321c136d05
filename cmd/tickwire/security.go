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
	"strings"

	"github.com/tickwire/tickwire/internal/atomicfile"
	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/transport"
)

// securityFlags are the transport-security options of relay, bot and demo.
// Connections are authenticated and encrypted (transport.Config.Security)
// unless --insecure is given; both ends must agree.
type securityFlags struct {
	insecure       bool
	keyFile        string             // relay: its identity
	matchmakerKey  string             // relay: the matchmaker's public key, hex or a file holding it
	exemptLoopback bool               // relay: no per-address limits for loopback peers
	maxPerAddr     int                // relay: connections one address may hold (0: secure's default)
	key            ed25519.PrivateKey // relay: its identity once loaded (identityKey)
	serverKey      string             // bot: the relay key to pin, hex
	identity       string             // bot: its identity file (the key a token names)
	token          string             // bot: a connect token, hex or a file holding it
}

func (s *securityFlags) addInsecure(fs *flag.FlagSet) {
	fs.BoolVar(&s.insecure, "insecure", false, "plaintext connections, no handshake or encryption (both ends must agree)")
}

func (s *securityFlags) addServer(fs *flag.FlagSet) {
	s.addInsecure(fs)
	fs.StringVar(&s.keyFile, "key", "", "file with the relay's Ed25519 identity (hex seed), created if missing; empty: a new identity each run")
	fs.StringVar(&s.matchmakerKey, "matchmaker-key", "", "the matchmaker's Ed25519 public key (hex, or a file holding it): admit only players with a connect token it signed for the room they join")
	s.addAddrLimits(fs)
}

// addAddrLimits registers the per-address connection limits, which serve
// and host share.
func (s *securityFlags) addAddrLimits(fs *flag.FlagSet) {
	fs.BoolVar(&s.exemptLoopback, "exempt-loopback", false, "exempt loopback peers from the per-address connection limits (local bots filling rooms)")
	fs.IntVar(&s.maxPerAddr, "max-conns-per-addr", 5, "connections one IP address may hold (players behind one NAT share an address)")
}

// limits are the per-address limits of the flags, for maxConns
// connections in all.
func (s securityFlags) limits(maxConns int) secure.Limits {
	return secure.Limits{MaxConnections: maxConns, MaxPerIP: s.maxPerAddr, ExemptLoopback: s.exemptLoopback}
}

func (s *securityFlags) addClient(fs *flag.FlagSet) {
	s.addInsecure(fs)
	fs.StringVar(&s.serverKey, "server-key", "", "the relay's public key (hex) to pin; empty: accept any")
	fs.StringVar(&s.identity, "identity", "", "file with the bots' Ed25519 identity (hex seed), created if missing; empty: a new identity per connection")
	fs.StringVar(&s.token, "token", "", "connect token from the matchmaker (hex, or a file holding it), for a relay run with --matchmaker-key; needs --identity")
}

// serverConfig is the relay side: its identity, connection limits and
// matchmaker key. Loopback peers skip the per-address limits only with
// exemptLoopback (demo and bench relay set it, so local bots can fill
// rooms).
func (s securityFlags) serverConfig(maxConns int) (*transport.SecurityConfig, error) {
	if s.insecure {
		if s.matchmakerKey != "" {
			return nil, fmt.Errorf("%w: --matchmaker-key needs the secure handshake, not --insecure (a plaintext token could be copied off the wire)", errUsage)
		}
		return nil, nil
	}
	var mm ed25519.PublicKey
	if s.matchmakerKey != "" {
		b, err := hexOrFile(s.matchmakerKey, ed25519.PublicKeySize)
		if err != nil {
			return nil, fmt.Errorf("%w: --matchmaker-key: %v", errUsage, err)
		}
		mm = b
	}
	id, err := s.identityKey()
	if err != nil {
		return nil, err
	}
	return &transport.SecurityConfig{Identity: id, Matchmaker: mm,
		Limits: s.limits(maxConns)}, nil
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
	if s.token != "" && s.identity == "" {
		return nil, fmt.Errorf("%w: --token needs --identity: the token names the player's key", errUsage)
	}
	if s.identity != "" {
		id, err := loadOrCreateKey(s.identity)
		if err != nil {
			return nil, err
		}
		sc.Identity = id
	}
	if s.token != "" {
		tok, err := hexOrFile(s.token, secure.TokenSize)
		if err != nil {
			return nil, fmt.Errorf("%w: --token: %v", errUsage, err)
		}
		sc.Token = tok
	}
	return sc, nil
}

// hexOrFile decodes arg as n hex-encoded bytes, or, failing that, reads
// them (hex-encoded) from the file arg names.
func hexOrFile(arg string, n int) ([]byte, error) {
	if b, err := hex.DecodeString(arg); err == nil && len(b) == n {
		return b, nil
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("neither %d hex-encoded bytes nor a readable file: %w", n, err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(b) != n {
		return nil, fmt.Errorf("file %s: want %d hex-encoded bytes", arg, n)
	}
	return b, nil
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
	if err := atomicfile.Write(path, []byte(hex.EncodeToString(seed)+"\n"), 0o600); err != nil {
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
