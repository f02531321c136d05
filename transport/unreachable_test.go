package transport

import (
	"context"
	"crypto/ed25519"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/tickwire/tickwire/internal/loopback"
)

// TestDialUDPClosedPortIsUnreachable: DialUDP to a port nothing listens
// on fails with ErrUnreachable wrapping ECONNREFUSED, the kernel's
// report of the ICMP port unreachable, with or without the secure
// handshake. The handshake timeout is longer than the test's context, so
// only the ICMP error can end the dial with that error.
func TestDialUDPClosedPortIsUnreachable(t *testing.T) {
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, sec := range map[string]*SecurityConfig{"plaintext": nil, "secure": {Identity: key}} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			addr := loopback.ClosedUDP(t)
			_, err := DialUDP(ctx, addr, Config{HandshakeTimeout: time.Hour, Security: sec})
			if !errors.Is(err, ErrUnreachable) || !errors.Is(err, syscall.ECONNREFUSED) {
				t.Fatalf("dial %s: %v, want ErrUnreachable and ECONNREFUSED", addr, err)
			}
		})
	}
}

// TestDialUDPStillConnects: the connected socket of DialUDP carries a
// whole connection both ways.
func TestDialUDPStillConnects(t *testing.T) {
	ln, err := ListenUDP(t.Context(), "127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := DialUDP(t.Context(), ln.Addr().String(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ChannelActions, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	c.Flush()
	m, err := s.Receive(t.Context())
	if err != nil || string(m.Data) != "ping" {
		t.Fatalf("server received %q, %v", m.Data, err)
	}
	if err := s.Send(ChannelActions, []byte("pong")); err != nil {
		t.Fatal(err)
	}
	s.Flush()
	m, err = c.Receive(t.Context())
	if err != nil || string(m.Data) != "pong" {
		t.Fatalf("client received %q, %v", m.Data, err)
	}
}
