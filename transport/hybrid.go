package transport

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// HybridConfig lists where DialHybrid tries to connect, in order: UDP,
// then TCP, then WebSocket (transport seed §5.3). Empty entries are skipped.
type HybridConfig struct {
	UDP          string // "host:port"
	TCP          string // "host:port"
	WebSocketURL string // "wss://host/path"
	// Timeout bounds each attempt: a network that drops UDP shows as a
	// handshake that never completes. 0 means 3 s.
	Timeout time.Duration
}

// DialHybrid connects over the first transport that works: UDP, else TCP,
// else WebSocket, each attempt bounded by hc.Timeout. A handshake the
// server answered and refused or failed (ErrHandshake: a refusal, a wrong
// server key) is final: the other transports reach the same server. The
// returned Conn's RemoteAddr().Network() tells which transport won
// ("udp", "tcp" or "websocket").
func DialHybrid(ctx context.Context, hc HybridConfig, cfg Config) (*Conn, error) {
	timeout := hc.Timeout
	if timeout == 0 {
		timeout = 3 * time.Second
	}
	attempts := []struct {
		name, addr string
		dial       func(context.Context, string, Config) (*Conn, error)
	}{
		{"udp", hc.UDP, DialUDP},
		{"tcp", hc.TCP, DialTCP},
		{"websocket", hc.WebSocketURL, DialWebSocket},
	}
	var errs []error
	for _, a := range attempts {
		if a.addr == "" {
			continue
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		c, err := a.dial(actx, a.addr, cfg)
		cancel()
		if err == nil {
			return c, nil
		}
		errs = append(errs, fmt.Errorf("%s %s: %w", a.name, a.addr, err))
		if errors.Is(err, ErrHandshake) || ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("%w: no address to dial", ErrInvalidConfig)
	}
	return nil, errors.Join(errs...)
}
