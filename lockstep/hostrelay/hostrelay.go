package hostrelay

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// DefaultRoom is the room a Relay hosts when its configuration names
// none.
const DefaultRoom = "host"

// Config configures a Relay. The zero value is usable.
type Config struct {
	// Room is the room remote players join; "" means DefaultRoom.
	Room string
	// Server configures the relay; MaxGames is forced to 1, the host's
	// game, and the room waits for its players without expiring unless
	// WaitingTimeout says otherwise. Its Models are the lockstep model
	// (Lockstep) only.
	Server server.Config
	// Lockstep configures the game's lockstep room.
	Lockstep lockstepserver.Config
	// Client configures the host's own RelayClient.
	Client lockstep.RelayClientConfig
}

// Relay is a listen server: the host runs the relay of its game
// in-process and plays in it. Remote players connect through a
// transport.Listener and join the room with lockstep.JoinRelay as they
// would join a dedicated relay. The host's own player is a
// lockstep.RelayClient connected to the same relay server over an
// in-memory transport pipe, so its orders take exactly the path
// everyone's do: the same room, the same relay.Core and the same filter
// chain, with no special case for the host.
//
// Relay implements lockstep.NetworkModel through its RelayClient.
type Relay struct {
	*lockstep.RelayClient
	srv    *server.Server
	cancel context.CancelFunc
	served chan struct{}
	once   sync.Once
}

// Start starts a relay for one game of roomSize players, serving remote
// players on l (nil for a game with only the host), and joins it as the
// host's player (player 1). It returns once the host is seated; the match
// starts when the room is full.
func Start(ctx context.Context, l *transport.Listener, roomSize int, cfg Config) (*Relay, error) {
	if cfg.Room == "" {
		cfg.Room = DefaultRoom
	}
	cfg.Server.MaxGames = 1
	cfg.Server.Models, cfg.Server.DefaultModel = []room.Model{lockstepserver.Model(cfg.Lockstep)}, ""
	if cfg.Server.WaitingTimeout == 0 {
		cfg.Server.WaitingTimeout = -1 // the host waits in its lobby as long as it likes
	}
	srv := server.New(cfg.Server)
	sctx, cancel := context.WithCancel(context.Background())
	e := &Relay{srv: srv, cancel: cancel, served: make(chan struct{})}
	hostSide, relaySide, err := transport.Pipe(ctx, lanes.TransportConfig())
	if err != nil {
		cancel()
		srv.Close()
		return nil, fmt.Errorf("hostrelay: host pipe: %w", err)
	}
	joined := make(chan error, 1)
	go func() { joined <- srv.ServeConn(ctx, relaySide) }()
	e.RelayClient, err = lockstep.JoinRelay(ctx, hostSide, cfg.Room, roomSize, cfg.Client)
	if jerr := <-joined; err == nil && jerr != nil {
		err = jerr
	}
	if err != nil {
		if e.RelayClient != nil {
			e.RelayClient.Close()
		}
		cancel()
		srv.Close()
		return nil, err
	}
	if l == nil {
		close(e.served)
		return e, nil
	}
	go func() {
		defer close(e.served)
		srv.Serve(sctx, l)
	}()
	return e, nil
}

// Server is the relay server, for its statistics.
func (e *Relay) Server() *server.Server { return e.srv }

// Close leaves the game, stops accepting players and ends the relay with
// every remote player's connection. It does not close the listener.
func (e *Relay) Close() error {
	var err error
	e.once.Do(func() {
		err = e.RelayClient.Close()
		e.cancel()
		<-e.served
		err = errors.Join(err, e.srv.Close())
	})
	return err
}
