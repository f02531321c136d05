// Package botpool plays bot clients side by side: what every network
// model's bot runner (lockstep/lockstepbot, fogauth/fogclient,
// predict/predictbot, statesync/syncclient, examples/echo) shares, so
// none writes its own goroutine fan-out.
package botpool

import (
	"context"
	"sync"

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
