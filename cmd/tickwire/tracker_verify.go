package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/transport"
)

// keyVerifier is the tracker's check of a new listing (--verify-listings):
// the server the listing names must answer a secure transport handshake on
// its own UDP address and prove there the listing's server key (the
// handshake signs a fresh challenge with it). Anyone can send a listing;
// only the server holding the key can answer, so a flood of made-up
// listings is refused whatever its sources. A proof holds for a while
// (heartbeats and a restart's republish cost nothing), and the proofs
// running at once are bounded: the tracker cannot be turned into a
// handshake cannon.
type keyVerifier struct {
	// Timeout bounds one handshake; 0 means 3 s.
	Timeout time.Duration
	// Remember is how long a proof holds; 0 means 10 min.
	Remember time.Duration

	once    sync.Once
	running chan struct{} // a token per handshake running
	mu      sync.Mutex
	proved  map[string]time.Time // host + "/" + key → proof valid until
}

// maxVerifying bounds the handshakes running at once, and maxProved the
// proofs remembered.
const (
	maxVerifying = 64
	maxProved    = 100_000
)

var errVerifierBusy = errors.New("the tracker is verifying too many listings: try again")

// Verify implements tracker.HandlerConfig.Verify.
func (v *keyVerifier) Verify(ctx context.Context, l tracker.Listing) error {
	v.once.Do(func() {
		v.running, v.proved = make(chan struct{}, maxVerifying), make(map[string]time.Time)
	})
	if l.ServerKey == "" {
		return fmt.Errorf("%w: the listing has no server_key (a plaintext --insecure server cannot be verified)", tracker.ErrUnverified)
	}
	key, err := hex.DecodeString(l.ServerKey)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: server_key is not an Ed25519 key", tracker.ErrUnverified)
	}
	if _, err := tracker.ParseCode(l.Host); err == nil {
		return fmt.Errorf("%w: host is a join code: only a listing with the server's address can be verified", tracker.ErrUnverified)
	}
	id := l.Host + "/" + l.ServerKey
	now := time.Now()
	v.mu.Lock()
	until, ok := v.proved[id]
	v.mu.Unlock()
	if ok && now.Before(until) {
		return nil
	}
	select {
	case v.running <- struct{}{}:
		defer func() { <-v.running }()
	default:
		return fmt.Errorf("%w: %w", tracker.ErrUnverified, errVerifierBusy)
	}
	if err := v.handshake(ctx, l.Host, key); err != nil {
		return fmt.Errorf("%w: %s: %v", tracker.ErrUnverified, l.Host, err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.proved) >= maxProved {
		clear(v.proved)
	}
	v.proved[id] = now.Add(cmp0(v.Remember, 10*time.Minute))
	return nil
}

// handshake dials host from a socket of its own, pinning key, and closes
// the connection once the handshake is done.
func (v *keyVerifier) handshake(ctx context.Context, host string, key []byte) error {
	ctx, cancel := context.WithTimeout(ctx, cmp0(v.Timeout, 3*time.Second))
	defer cancel()
	addr, err := net.ResolveUDPAddr("udp", host)
	if err != nil {
		return err
	}
	pc, err := net.ListenPacket("udp", ":0")
	if err != nil {
		return err
	}
	defer pc.Close()
	tcfg := lanes.TransportConfig()
	tcfg.Security = &transport.SecurityConfig{ServerKey: key}
	c, err := transport.Dial(ctx, pc, addr, tcfg)
	if err != nil {
		return err
	}
	c.CloseWithReason("tracker: listing verified")
	return nil
}

// cmp0 is d, or def when d is not positive.
func cmp0(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
