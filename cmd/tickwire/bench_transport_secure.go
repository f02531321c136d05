package main

import (
	"context"
	"time"

	"github.com/tickwire/tickwire/transport/securebench"
)

// measureSecurity returns the security figures of "tickwire bench transport"
// (handshakes per second, AEAD cost, encryption cost on W1) for its JSON
// field "security". d bounds the time spent.
func measureSecurity(ctx context.Context, d time.Duration) (any, error) {
	r, err := securebench.Measure(ctx, d)
	if err != nil {
		return nil, err
	}
	return r, nil
}
