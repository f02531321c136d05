package server

import (
	"log/slog"
	"time"

	"github.com/tickwire/tickwire/relay"
	"github.com/tickwire/tickwire/relay/msg"
	"github.com/tickwire/tickwire/transport"
)

// Defaults for a zero Config.
const (
	// DefaultJoinTimeout bounds the wait for a new connection's JoinRoom.
	DefaultJoinTimeout = 10 * time.Second
	// DefaultFlushInterval is the transport's Nagle-style flush interval
	// in TransportConfig. The relay and the client flush explicitly after
	// each batch of messages; the interval only catches stragglers.
	DefaultFlushInterval = 5 * time.Millisecond
	// DefaultAckDelay is the transport's acknowledgement delay in
	// TransportConfig. Relay traffic flows both ways at the tick rate (a
	// tick frame down, an order submission up), so a delay just longer
	// than a tick lets each acknowledgement ride on the next datagram the
	// other way instead of a datagram of its own: at 30 ticks per second
	// this halves the datagrams of a game. 50 ms covers the tick interval
	// up to 20 ticks per second; it also lengthens the retransmission
	// timeout by as much, which matters little as orders ride in two
	// datagrams from their first transmission on.
	DefaultAckDelay = 50 * time.Millisecond
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
	// RequireToken admits to a room only connections whose secure
	// handshake carried a connect token for that room (see token.go);
	// the listener's transport.SecurityConfig.Matchmaker must be set, so
	// that the handshake verifies the token's signature, server, expiry
	// and player key.
	RequireToken bool
}

// TransportConfig is the transport configuration of relay connections on
// both sides: the lane channel set, the flush interval and the
// acknowledgement delay. Both ends must use the same channels.
func TransportConfig() transport.Config {
	return transport.Config{Channels: transport.Lanes(), FlushInterval: DefaultFlushInterval, AckDelay: DefaultAckDelay}
}

// Lane is the transport channel a relay message travels on: calibration
// pings and pongs and client metrics on the control lane (unreliable,
// sequenced: a stale sample is worthless), everything else on the orders
// lane (reliable, ordered).
func Lane(m msg.Message) transport.ChannelID {
	switch m.(type) {
	case *msg.CalibrationPing, *msg.CalibrationPong, *msg.ClientMetrics:
		return transport.LaneControl
	}
	return transport.LaneOrders
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
