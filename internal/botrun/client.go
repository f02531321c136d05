package botrun

import (
	"context"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
)

// Client is one joined player: a lockstep network model that knows the
// local player's id and, once play starts, the agreed game seed.
type Client interface {
	lockstep.NetworkModel
	// Player is the local player's id in the match.
	Player() protocol.PlayerID
	// Seed is the agreed game seed; valid once Status is StatusPlaying.
	Seed() uint64
	// Close leaves the match and releases the connection.
	Close() error
}

// JoinFunc connects bot i (0-based, of this process) and joins its room.
type JoinFunc func(ctx context.Context, i int) (Client, error)
