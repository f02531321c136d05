package join

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
	"github.com/tickwire/tickwire/wire"
)

// Ending is a client's end of its match: it keeps the certified result
// (MatchResult) the server sends when the match ends. Every model's client
// holds one: its reader calls Keep on each message before decoding its
// own, and a player done with the match calls Leave. The zero value is
// ready; it is safe for concurrent use.
type Ending struct {
	mu   sync.Mutex
	cert []byte
}

// Keep reports whether data is a MatchResult; if so it keeps its
// certificate (the first one) and the caller has nothing more to do with
// data. A malformed MatchResult is kept as nothing but still reported:
// it is not the model's message either.
func (e *Ending) Keep(data []byte) bool {
	if wire.NewReader(data).Type() != TypeMatchResult {
		return false
	}
	m, err := Parse(data)
	if err != nil {
		return true
	}
	e.mu.Lock()
	if e.cert == nil {
		e.cert = m.(*MatchResult).Certificate
	}
	e.mu.Unlock()
	return true
}

// Certificate returns the match result kept, or nil if none arrived.
func (e *Ending) Certificate() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cert
}

// Leave tells the server the player is done (a Leave message on the
// orders lane) and reads conn until the match result arrives, the
// connection ends or ctx is done; nobody else may read conn meanwhile
// (the client's reader has stopped). It returns the certificate, or nil
// and why none came. A result kept before Leave is returned at once.
func (e *Ending) Leave(ctx context.Context, conn *transport.Conn) ([]byte, error) {
	if c := e.Certificate(); c != nil {
		return c, nil
	}
	b, _ := (&Leave{}).Append(nil)
	if err := conn.Send(lanes.Orders, b); err != nil {
		return nil, fmt.Errorf("join: sending Leave: %w", err)
	}
	conn.Flush()
	for {
		tm, err := conn.Receive(ctx)
		if err != nil {
			return nil, fmt.Errorf("join: no match result: %w", err)
		}
		if tm.Channel == lanes.Orders && e.Keep(tm.Data) {
			if c := e.Certificate(); c != nil {
				return c, nil
			}
			return nil, errors.New("join: malformed match result")
		}
	}
}
