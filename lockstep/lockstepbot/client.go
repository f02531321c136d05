package lockstepbot

import (
	"context"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
)

// Client is one joined player: a lockstep network model that knows the
// local player's id, learns the agreed game seed and can be waited on.
// *lockstep.RelayClient implements it.
type Client interface {
	lockstep.NetworkModel
	// PlayerID is the local player's id in the match.
	PlayerID() protocol.PlayerID
	// AwaitSeed waits until the match's game seed is agreed.
	AwaitSeed(ctx context.Context) (uint64, error)
	// Wait blocks until PollTick has a tick, the model ended or ctx is
	// done.
	Wait(ctx context.Context) error
	// Close leaves the match and releases the connection.
	Close() error
	// Leave leaves the match like Close, waiting first (until ctx is
	// done) for the match's certified result, which it returns.
	Leave(ctx context.Context) ([]byte, error)
	// NetworkModel is the room's network model as the server asserted it
	// when the client joined.
	NetworkModel() string
}

// JoinFunc connects bot i (0-based, of this process) and joins its room.
type JoinFunc func(ctx context.Context, i int) (Client, error)
