package room

import (
	"context"
	"log/slog"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/transport"
)

// Network model names: the words of the server configuration and of the
// network_model label a server reports to a joining client.
const (
	Lockstep         = "lockstep"
	FogAuthoritative = "fog_authoritative"
	Prediction       = "prediction"
	StateSync        = "state_sync"
)

// Model is a network model a server can host.
type Model struct {
	// Name is the model's name (Lockstep, FogAuthoritative, …).
	Name string
	// MaxRoomSize bounds the players of one room; a join asking for more
	// is refused. It must be at least 1.
	MaxRoomSize int
	// MaxRooms bounds the model's rooms, waiting or playing, beside the
	// server's own limit on all rooms; 0 means only the server's limit.
	MaxRooms int
	// TickRate is the tick rate reported to a joining client; 0 means the
	// server's.
	TickRate int
	// MessageRate and MessageBurst are the inbound rate limit of each of
	// the model's connections in messages per second and messages; 0
	// means the server's (see the server's Config). Messages beyond it
	// are dropped before the Inbox and counted.
	MessageRate, MessageBurst int
	// Channels are the transport channels the model's rooms send and
	// receive on. Take them from server/lanes.Channels() (by lane id:
	// lanes.Orders, lanes.Control, lanes.State), which every client of a
	// tickwire server dials with; a server offers the union of its models'
	// channels, and two models naming the same id must configure it
	// identically.
	Channels []transport.ChannelConfig
	// Rejoin lets a player whose connection ended (or who presents its
	// seat's secret from a new connection) take its seat again while the
	// room plays: the server gives each seat a rejoin secret in its
	// JoinAccepted and, on a JoinRoom asking to rejoin with the seat's
	// player and secret, posts the new connection to the Inbox
	// (Inbound.Joined). Without it rejoins are refused as unsupported.
	// The secret is the server's (crypto/rand per seat, checked in
	// constant time before the room sees the connection): any model
	// that sets Rejoin has it, and needs no code of its own for it
	// beyond handling Inbound.Joined. A client keeps it from join.Seat
	// and rejoins with a join.Request as join.AsRejoin.
	Rejoin bool
	// MaxSpectators bounds the spectators of one room: connections that
	// join a playing room to watch (player 0, seat indices from the room
	// size up), posted to the Inbox like a rejoin. 0 means the model takes
	// no spectators: they are refused as unsupported.
	MaxSpectators int
	// LateJoin lets new players join the room while it plays: a JoinRoom
	// as a player (with the room's size) for a playing room of the model
	// takes the lowest player id whose connection ended, and is posted to
	// the Inbox like a rejoin (Inbound.Joined); with no such seat it is
	// refused as full. Without it a playing room refuses new players.
	LateJoin bool
	// New starts a room once all its seats are taken. An error ends the
	// room: the server closes the seats.
	New func(Params) (Room, error)
	// Metrics, if set, returns the model's own figures for /metrics at
	// scrape time (cumulative over all its rooms, so a counter never goes
	// back when a room ends). It is called from any goroutine.
	Metrics func() []admin.Metric
}

// Params is what a model's room starts with.
type Params struct {
	// Name is the room's name; MatchType the match type its creator
	// asked for ("" if none).
	Name, MatchType string
	// Seats are the room's players: Seats[i] plays as player i+1. The
	// connections are joined and already answered JoinAccepted.
	Seats []Seat
	// Inbox carries every seat's messages, stamped on arrival and
	// rate-limited per connection, and each seat's end.
	Inbox *Inbox
	// TickRate is the tick rate the clients were told.
	TickRate int
	// Clock is the server clock: the time since an epoch of its choosing,
	// never going backwards. Arrival stamps in the Inbox are on it.
	Clock func() time.Duration
	// Logger is the room's logger (with the room's name).
	Logger *slog.Logger
	// CloseSeat closes seat i's connection (a player's or a
	// spectator's) gracefully in the background
	// (delivering what is queued) with reason; the server waits for it
	// when it closes. The seat's end then arrives in the Inbox.
	CloseSeat func(i int, reason string)
	// Counters are the model's send figures, shared by its rooms'
	// drivers (the server reports them by model); nil gives a room
	// counters of its own.
	Counters *Counters
	// Result, if set, is called once by the Driver when it stops, with
	// the room's final Status; the message it returns (nil: none) goes to
	// every seat, player or spectator, still connected or left with Leave
	// (ErrLeft) on
	// the orders lane before Run returns. A Room that is not a Driver
	// calls it itself as its match ends. The server sets it: it records
	// the match's end and sends the certified result (join.MatchResult).
	Result func(Status) []byte
}

// Seat is a seated player, or a spectator (Player 0).
type Seat struct {
	Player protocol.PlayerID
	Conn   *transport.Conn
}

// Room is a started match of one model. A model's New usually returns
// NewDriver(p, core): the Driver is the Room, the model brings its Core.
type Room interface {
	// Run drives the match until it ends, every seat is gone or ctx is
	// done (the server is closing). The server closes the seats still
	// open when Run returns, and the room is gone.
	Run(ctx context.Context) error
	// Status describes the room for the server's statistics. It is
	// called from any goroutine and must be cheap (an atomic snapshot).
	Status() Status
}

// Status is a room's published state.
type Status struct {
	// Phase is the model's word for the room's state ("calibrating",
	// "playing", …).
	Phase string
	// Tick is the match's current tick.
	Tick uint64
	// Outcome is the model's verdict once the match is over ("finished",
	// "desync", …) for the server's match records; "" lets the server
	// decide (finished if the match got past tick 0, abandoned if not,
	// shutdown if the server closed it).
	Outcome string
	// FinalHash is the model's hash of the match's state as it stands, in
	// hex ("" if it has none), recorded as the match's final hash:
	// lockstep's last sync hash every player agreed on, prediction's
	// authoritative state hash, state sync's latest majority hash, the
	// fog-authoritative game's state hash (when the game has one).
	FinalHash string
	// Turns are the processing times of the driver's last turns (up to
	// TurnHistory, oldest first) and Budget the tick interval they are
	// measured against; the driver fills them.
	Turns  []time.Duration
	Budget time.Duration
	// Report is the model's own figures, if its Core is a Reporter.
	Report *Report
}

// TurnHistory is how many turn times a published Status holds.
const TurnHistory = 120
