package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// tokenFlags are the options of "tickwire token".
type tokenFlags struct {
	key       string // the matchmaker's identity file
	public    bool
	serverKey string
	room      string
	playerKey string
	playerID  uint64
	ttl       time.Duration
}

func parseTokenFlags(args []string, stderr io.Writer) (tokenFlags, error) {
	var f tokenFlags
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.key, "key", "", "file with the matchmaker's Ed25519 identity (hex seed), created if missing (required)")
	fs.BoolVar(&f.public, "public", false, "print the matchmaker's public key (what relay --matchmaker-key takes) instead of a token")
	fs.StringVar(&f.serverKey, "server-key", "", "the relay's public key, hex (its startup log prints it)")
	fs.StringVar(&f.room, "room", "", "the room the token admits to")
	fs.StringVar(&f.playerKey, "player-key", "", "the player's Ed25519 public key (hex), or its identity file (bot --identity)")
	fs.Uint64Var(&f.playerID, "player-id", 0, "the matchmaker's id of the player")
	fs.DurationVar(&f.ttl, "ttl", 10*time.Minute, "how long the token admits")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.key == "":
		return f, fmt.Errorf("%w: --key is required", errUsage)
	case !f.public && (f.serverKey == "" || f.room == "" || f.playerKey == ""):
		return f, fmt.Errorf("%w: --server-key, --room and --player-key are required", errUsage)
	case f.ttl <= 0:
		return f, fmt.Errorf("%w: --ttl must be positive", errUsage)
	}
	return f, nil
}

// runToken mints a connect token, or prints the matchmaker's public key:
// "tickwire token". A matchmaker written in Go calls secure.IssueToken
// directly.
func runToken(_ context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseTokenFlags(args, stderr)
	if err != nil {
		return err
	}
	mm, err := loadOrCreateKey(f.key)
	if err != nil {
		return err
	}
	if f.public {
		_, err := fmt.Fprintln(stdout, hex.EncodeToString(mm.Public().(ed25519.PublicKey)))
		return err
	}
	srv, err := hex.DecodeString(f.serverKey)
	if err != nil || len(srv) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: --server-key must be %d hex-encoded bytes", errUsage, ed25519.PublicKeySize)
	}
	player, err := playerPublicKey(f.playerKey)
	if err != nil {
		return fmt.Errorf("%w: --player-key: %v", errUsage, err)
	}
	t := secure.Token{Server: srv, Player: player, Room: secure.RoomID(f.room), PlayerID: f.playerID,
		Expires: time.Now().Add(f.ttl)}
	rand.Read(t.Nonce[:])
	tok, err := secure.IssueToken(mm, t)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, hex.EncodeToString(tok))
	return err
}

// playerPublicKey reads a public key given in hex, or derives it from an
// identity file (a hex seed, as bot --identity writes).
func playerPublicKey(arg string) (ed25519.PublicKey, error) {
	if b, err := hex.DecodeString(arg); err == nil && len(b) == ed25519.PublicKeySize {
		return b, nil
	}
	if _, err := os.Stat(arg); err != nil {
		return nil, fmt.Errorf("neither %d hex-encoded bytes nor an identity file: %w", ed25519.PublicKeySize, err)
	}
	id, err := loadOrCreateKey(arg)
	if err != nil {
		return nil, err
	}
	return id.Public().(ed25519.PublicKey), nil
}
