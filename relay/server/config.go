package server

import (
	"log/slog"
	"time"

	"github.com/tickwire/tickwire/relay"
)

// Defaults for a zero Config.
const (
	// DefaultJoinTimeout bounds the wait for a new connection's JoinRoom.
	DefaultJoinTimeout = 10 * time.Second
	// statsInterval is how often a room refreshes its published figures.
	statsInterval = time.Second
	// inboxPerPlayer bounds the decoded messages queued for a room per
	// player; a reader that finds the queue full waits, and the transport
	// then pushes back on the peer.
	inboxPerPlayer = 256
)

// Config configures a Server. The zero value is useful: 30 ticks per
// second, the relay package's defaults and no limit on concurrent games.
type Config struct {
	// TickRate is ticks per second; 0 means relay.DefaultTickRate. It
	// overrides Relay.TickRate.
	TickRate int
	// Relay configures each game's relay.Core.
	Relay relay.Config
	// MaxGames bounds the rooms (waiting or playing) at once; 0 means no
	// limit.
	MaxGames int
	// JoinTimeout bounds the wait for a connection's first message.
	JoinTimeout time.Duration
	// Clock returns the relay clock: the time since an epoch of its
	// choosing, never going backwards. Nil means the time since New.
	Clock func() time.Duration
	// OnEvent, if set, receives every event of every game (for logs,
	// replays, audit trails). It is called from the game's goroutine and
	// must not block for long.
	OnEvent func(room string, ev relay.Event)
	// Logger receives room lifecycle logs. Nil discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.TickRate <= 0 {
		c.TickRate = c.Relay.TickRate
	}
	if c.TickRate <= 0 {
		c.TickRate = relay.DefaultTickRate
	}
	c.Relay.TickRate = c.TickRate
	if c.JoinTimeout <= 0 {
		c.JoinTimeout = DefaultJoinTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}
