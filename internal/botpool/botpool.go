// Package botpool plays bot clients side by side: what every network
// model's bot runner (lockstep/lockstepbot, fogauth/fogclient,
// predict/predictbot, statesync/syncclient, examples/echo) shares, so
// none writes its own goroutine fan-out.
package botpool

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/tickwire/tickwire/transport"
)

// Dial connects bot i to the server: a bot runner calls it once per
// connection it opens (again when a bot comes back after leaving).
type Dial func(ctx context.Context, i int) (*transport.Conn, error)

// Play runs play for bots 0..n-1, each on its own goroutine, and returns
// their results in that order once every one has returned.
func Play[T any](n int, play func(i int) T) []T {
	out := make([]T, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = play(i) })
	}
	wg.Wait()
	return out
}

// ResultWait bounds a bot's wait, once it is done with its match, for
// the match's certified result: the match ends when its last player is
// done, so a bot waits for the others.
const ResultWait = 30 * time.Second

// Leave calls a client's Leave (join.Ending.Leave beneath: tell the
// server the bot is done, wait for the result) for at most ResultWait and
// returns the certificate as a bot report's JSON: nil if none came or it
// is not JSON.
func Leave(ctx context.Context, leave func(context.Context) ([]byte, error)) json.RawMessage {
	ctx, cancel := context.WithTimeout(ctx, ResultWait)
	defer cancel()
	cert, err := leave(ctx)
	if err != nil || !json.Valid(cert) {
		return nil
	}
	return cert
}
