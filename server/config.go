package server

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// Defaults for a zero Config.
const (
	// DefaultJoinTimeout bounds the wait for a new connection's JoinRoom.
	DefaultJoinTimeout = 10 * time.Second
	// DefaultMaxGames bounds the rooms (waiting or playing) of a server.
	// A lockstep room costs the server about 2.5–3 ms of CPU per game
	// second at 30 ticks per second (BENCHMARKS.md), so a thousand rooms
	// are several cores' worth: beyond that a server is overcommitted
	// whatever its memory.
	DefaultMaxGames = 1000
	// DefaultWaitingTimeout is how long a room may wait for its players.
	DefaultWaitingTimeout = 2 * time.Minute
	// DefaultMaxWaitingPerAddr bounds the waiting rooms that connections
	// from one IP address may have created and not yet filled.
	DefaultMaxWaitingPerAddr = 16
)

// DefaultTickRate is the tick rate of a model that names none.
const DefaultTickRate = 30

// Config configures a Server. The zero value is useful once it names a
// network model (Models): at most DefaultMaxGames rooms at
// DefaultTickRate, waiting rooms expiring after DefaultWaitingTimeout.
type Config struct {
	// TickRate is ticks per second of a model whose TickRate is 0; 0
	// means DefaultTickRate.
	TickRate int
	// MaxGames bounds the rooms (waiting or playing) at once; 0 means
	// DefaultMaxGames, a negative value no limit.
	MaxGames int
	// WaitingTimeout is how long a room may wait for its last player
	// after its first joined; then it expires and its connections are
	// closed. 0 means DefaultWaitingTimeout, a negative value never.
	WaitingTimeout time.Duration
	// MaxWaitingPerAddr bounds the rooms, created by connections from one
	// IP address, that are still waiting for players; 0 means
	// DefaultMaxWaitingPerAddr, a negative value no limit.
	MaxWaitingPerAddr int
	// MessageRate and MessageBurst are the inbound rate limit of every
	// seated connection, in messages per second and messages (a token
	// bucket): messages beyond it are dropped before they reach the
	// room's queue, and counted. 0 means 4 × TickRate and 4 × TickRate (a
	// client sends about one message per tick); a model may set its own
	// (room.Model.MessageRate).
	MessageRate, MessageBurst int
	// Models are the network models the server hosts (see room.Model),
	// e.g. lockstep/lockstepserver.Model: a server knows none of its own.
	// Names must be unique.
	Models []room.Model
	// DefaultModel is the network model of a room whose join names
	// neither a configured match type nor a model the server lets it
	// choose; "" means the first of Models.
	DefaultModel string
	// MatchTypes maps a match type (JoinRoom.MatchType) to the network
	// model of its rooms; it takes precedence over the join's request.
	MatchTypes map[string]string
	// AllowRequestedModel lets a join's requested network model choose
	// the model of a room whose match type has none configured.
	AllowRequestedModel bool
	// JoinTimeout bounds the wait for a connection's first message.
	JoinTimeout time.Duration
	// Clock returns the relay clock: the time since an epoch of its
	// choosing, never going backwards. Nil means the time since New.
	Clock func() time.Duration
	// Logger receives room lifecycle logs. Nil discards them.
	Logger *slog.Logger
	// RequireToken admits to a room only connections whose secure
	// handshake carried a connect token for that room (see token.go);
	// the listener's transport.SecurityConfig.Matchmaker must be set, so
	// that the handshake verifies the token's signature, server, expiry
	// and player key.
	RequireToken bool
	// OnMatch, if set, is told when a room's match starts and ends (see
	// MatchEvent): match records, listings. It is called from the room's
	// goroutine and must return quickly.
	OnMatch func(MatchEvent)
	// Certify, if set, makes the certified result of an ended match
	// (after OnMatch saw its end): the server sends the bytes it returns
	// in a join.MatchResult to each of the match's players and
	// spectators (observers) still connected, or that left with
	// join.Leave, before it closes their
	// connections. The binary signs the match record with the server's
	// key (records.Certify). Nil bytes send nothing; an error is logged.
	// It is called from the room's goroutine.
	Certify func(MatchEvent) ([]byte, error)
}

// Transport is the transport configuration of a server with c's models:
// lanes.TransportConfig with the union of the models' channels. It fails if two
// models configure one channel id differently.
func (c Config) Transport() (transport.Config, error) {
	tc := lanes.TransportConfig()
	for _, m := range c.Models {
		for _, ch := range m.Channels {
			i := slices.IndexFunc(tc.Channels, func(o transport.ChannelConfig) bool { return o.ID == ch.ID })
			switch {
			case i < 0:
				tc.Channels = append(tc.Channels, ch)
			case !sameChannel(tc.Channels[i], ch):
				return tc, fmt.Errorf("server: network model %q configures channel %d (%s) unlike another model", m.Name, ch.ID, ch.Name)
			}
		}
	}
	return tc, nil
}

// sameChannel compares two channel configurations.
func sameChannel(a, b transport.ChannelConfig) bool { return reflect.DeepEqual(a, b) }

// Check reports the first inconsistency of c: a model without a name or
// a constructor, two models of one name, a default or match-type model
// the server does not host, or conflicting channels. New does not check;
// a binary calls Check on its configuration before serving.
func (c Config) Check() error {
	if len(c.Models) == 0 {
		return fmt.Errorf("server: no network model")
	}
	seen := map[string]bool{}
	for _, m := range c.Models {
		switch {
		case m.Name == "" || len(m.Name) > join.MaxModelName:
			return fmt.Errorf("server: network model name %q: want 1..%d bytes", m.Name, join.MaxModelName)
		case seen[m.Name]:
			return fmt.Errorf("server: network model %q registered twice", m.Name)
		case m.New == nil:
			return fmt.Errorf("server: network model %q has no New", m.Name)
		case m.MaxRoomSize < 1:
			return fmt.Errorf("server: network model %q: MaxRoomSize must be at least 1", m.Name)
		}
		seen[m.Name] = true
	}
	if c.DefaultModel != "" && !seen[c.DefaultModel] {
		return fmt.Errorf("server: default network model %q is not hosted", c.DefaultModel)
	}
	for mt, name := range c.MatchTypes {
		if !seen[name] {
			return fmt.Errorf("server: match type %q: network model %q is not hosted", mt, name)
		}
	}
	_, err := c.Transport()
	return err
}

func (c Config) withDefaults() Config {
	if c.TickRate <= 0 {
		c.TickRate = DefaultTickRate
	}
	if c.JoinTimeout <= 0 {
		c.JoinTimeout = DefaultJoinTimeout
	}
	if c.MaxGames == 0 {
		c.MaxGames = DefaultMaxGames
	}
	if c.WaitingTimeout == 0 {
		c.WaitingTimeout = DefaultWaitingTimeout
	}
	if c.MaxWaitingPerAddr == 0 {
		c.MaxWaitingPerAddr = DefaultMaxWaitingPerAddr
	}
	if c.MessageRate <= 0 {
		c.MessageRate = 4 * c.TickRate
	}
	if c.MessageBurst <= 0 {
		c.MessageBurst = 4 * c.TickRate
	}
	if c.DefaultModel == "" && len(c.Models) > 0 {
		c.DefaultModel = c.Models[0].Name
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}
