package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// joinServer is one player of a two-player room on a dedicated server
// (tickwire serve): dial it, encrypted and pinning its key when keyHex
// is set, join room, play ticks ticks and tell the result in one line.
func joinServer(ctx context.Context, addr, keyHex, room string, ticks uint64) (string, error) {
	cfg := lanes.TransportConfig()
	if keyHex != "" {
		key, err := hex.DecodeString(keyHex)
		if err != nil || len(key) != ed25519.PublicKeySize {
			return "", fmt.Errorf("-server-key %q: want the server's %d-byte public key in hex", keyHex, ed25519.PublicKeySize)
		}
		cfg.Security = &transport.SecurityConfig{ServerKey: ed25519.PublicKey(key)}
	}
	conn, err := transport.DialUDP(ctx, addr, cfg)
	if err != nil {
		return "", err
	}
	rc, err := lockstep.JoinRelay(ctx, conn, room, 2, lockstep.RelayClientConfig{})
	if err != nil {
		return "", err
	}
	defer rc.Close()
	r := play(ctx, rc, ticks)
	if r.err != nil {
		return "", r.err
	}
	return fmt.Sprintf("gridtactics: player %d, %d ticks, state hash %#x, units left: player 1 %d, player 2 %d",
		rc.PlayerID(), ticks, r.game.StateHash(), r.game.Alive(1), r.game.Alive(2)), nil
}
