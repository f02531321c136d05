package netlayer

import (
	"context"
	"errors"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/transport"
)

// Options choose and configure a client's network layer.
type Options struct {
	// Local runs the room in this process (the server emulation):
	// NewGame and Server configure it and the client plays as player 1.
	Local   bool
	NewGame func() predict.Game
	Server  predict.ServerConfig

	// Otherwise Dial connects to the server, and the client joins Room
	// (of RoomSize players) on it.
	Dial     func(ctx context.Context) (*transport.Conn, error)
	Room     string
	RoomSize int
}

// Open is the bootstrap: it returns the loopback layer with Local, else
// a Remote joined to the room. Either way the client then runs the same
// code over the returned Network.
func Open(ctx context.Context, o Options) (predict.Network, error) {
	if o.Local {
		if o.NewGame == nil {
			return nil, errors.New("netlayer: a local room needs NewGame")
		}
		return predict.NewLocalServer(o.Server, o.NewGame()).Connect(0, 1)
	}
	if o.Dial == nil {
		return nil, errors.New("netlayer: no server to dial")
	}
	conn, err := o.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return Join(ctx, conn, o.Room, o.RoomSize)
}

// Run drives a session in real time until done reports true or ctx ends:
// it steps the session whenever messages arrive (on a Remote) and at
// least every millisecond, on a clock started at Run's call.
func Run(ctx context.Context, s *predict.Session, intent predict.IntentFunc, done func() bool) error {
	start := time.Now()
	var arrived <-chan struct{}
	if r, ok := s.Net.(*Remote); ok {
		arrived = r.Arrived()
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !done() {
		if err := s.Step(time.Since(start), intent); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-arrived:
		case <-tick.C:
		}
	}
	return nil
}
