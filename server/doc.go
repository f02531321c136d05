// Package server is the game server: it hosts many concurrent games, each
// in a named room of one network model, over transport connections. It
// knows no model: every model, lockstep (lockstep/lockstepserver)
// included, plugs in through package room (Config.Models), and every
// model's room runs on room.Driver.
//
// # Joining
//
// A client connects (transport.Dial with Config.Transport, which is
// lanes.TransportConfig while models use the lanes) and sends JoinRoom{Room,
// RoomSize, NetworkModel, MatchType} as its first message (package
// server/join: the join messages and the client's Join, which every
// model's client uses; a refusal reaches it as a *join.JoinError
// matching one sentinel per reason). The server
// seats it in the named room, creating the room on first use with the
// network model the configuration picks (Config.MatchTypes, else the
// request if Config.AllowRequestedModel, else Config.DefaultModel), and
// answers JoinAccepted{Player, RoomSize, TickRate, NetworkModel}; player
// ids are 1..RoomSize in join order (a seat freed before the game starts
// is given to the next joiner). It answers JoinRefused and closes the
// connection when the room is full or already playing, when the room
// exists with another size or model, when the size exceeds the model's
// bound, when creating the room would exceed Config.MaxGames or the
// model's room limit, when the peer's address already waits in
// Config.MaxWaitingPerAddr rooms, when the model is not hosted, when the
// first message is not a JoinRoom, or when the server is closing.
//
// A JoinRoom with As AsSpectator or AsRejoin joins a room that plays,
// if its model takes it (room.Model.MaxSpectators, room.Model.Rejoin):
// a spectator gets player 0 up to the model's limit; a rejoin names the
// seat's player and the secret from that seat's JoinAccepted (drawn from
// crypto/rand per seat, compared in constant time; with RequireToken also
// a token for the seat's player key) and takes the seat again, closing
// the old connection if it still lives. The new
// connection goes to the running room as an Inbound.Joined, after the old
// connection's end. Lockstep takes neither. The rejoin secret is a seat
// property of the server, not of a model: any model that sets
// room.Model.Rejoin gets it (TestLateJoinSeam runs it on a test model).
//
// A JoinRoom as a player for a playing room whose model takes late
// joiners (room.Model.LateJoin, e.g. state_sync) takes the lowest seat
// whose connection ended and reaches the room the same way; with every
// seat taken, and for every other model, it is refused as full.
//
// A room not full within Config.WaitingTimeout (server clock) expires: its
// connections are closed. Each seated connection's messages pass a token
// bucket (Config.MessageRate, MessageBurst) before the room's queue;
// messages beyond it are dropped and counted, so one player cannot fill
// the queue the others' submissions wait in.
// With Config.RequireToken it also refuses (RefuseToken) a connection
// whose secure handshake carried no connect token for the room it names.
//
//	client                         server
//
// The exchange, for a lockstep room (what follows JoinAccepted is the
// model's: lockstep/lockstepserver):
//
//	│── JoinRoom{"r1", 4, lockstep} ▶│  seat 1..4, or JoinRefused + close
//	│◀─ JoinAccepted{3,4,30,lockstep}│
//	│        … room fills …          │  Model.New: relay.New(cfg, [1 2 3 4], now)
//	│◀─ CalibrationPing ×20 ─────────│
//	│── CalibrationPong, SeedCommit ▶│
//	│◀────── MatchTiming ────────────│
//	│◀────── SeedCommitments ────────│
//	│── SeedReveal ─────────────────▶│
//	│◀────── SeedResult ─────────────│
//	│── OrderSubmit (every window) ─▶│
//	│◀────── TickFrame (every tick) ─│  never late: Idle for the missing
//	│── SyncHash (when asked) ──────▶│
//	│◀── TimingFeedback (every 30) ──│
//	│◀── LateNotice (when late) ─────│  added by the lockstep room from
//	│                                │  the core's LateSubmission events
//
// # Lanes
//
// Every connection has the lanes of server/lanes (and those a model
// adds): the orders lane (reliable, ordered, fragmenting), the control
// lane (unreliable sequenced) and the state lane (unreliable,
// fragmenting); the join exchange travels on the orders lane.
//
// # Rooms
//
// A seat's messages are taken on the transport's read goroutine (a
// transport.MessageHandler, no goroutine per connection): stamped with
// the server clock on arrival, rate limited, and queued in the room's
// room.Inbox, which wakes the room once per read batch. One goroutine per room, room.Driver, takes everything
// queued at once, hands it to the model's core, ticks it, sends what it
// produced with one flush for the room (a transport.FlushGroup: one
// sendmmsg on Linux), and applies the one backpressure policy: a seat
// that takes nothing for room.SendGrace is disconnected with a reason
// its client reads, counted (ModelStats.TooSlow,
// tickwire_relay_slow_disconnects_total) and logged at most once a
// second. A room ends when its model says so, or when the server closes;
// its remaining connections are then closed gracefully.
//
// # Clock and figures
//
// lanes.TransportConfig delays acknowledgements (lanes.DefaultAckDelay) past a tick
// interval: traffic flows both ways every tick, so acknowledgements ride
// on tick frames and order submissions instead of datagrams of their own.
//
// The server clock is Config.Clock, by default the time since New; the
// models' times in messages are microseconds of it. Stats returns
// cumulative counters (messages, refused joins by reason, expired rooms,
// rate-limited messages, send errors by cause, wire bytes and
// datagrams), a per-room snapshot (the model's status, refreshed about
// once a second) and per-model figures with each model's own metrics
// (room.Model.Metrics: lockstep's late orders, strikes, broadcast
// lateness, … are lockstep's); Stats.AdminMetrics turns the labelled ones
// into admin metrics.
package server
