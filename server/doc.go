// Package server is the game server: it hosts many concurrent games, each
// in a named room of one network model, over transport connections.
// Lockstep (a relay.Core per room) is built in; other models plug in
// through package room (Config.Models).
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
//	  │── JoinRoom{"r1", 4, lockstep} ▶│  seat 1..4, or JoinRefused + close
//	  │◀─ JoinAccepted{3,4,30,lockstep}│
//	  │        … room fills …          │  relay.New(cfg, [1 2 3 4], now)
//	  │◀─ CalibrationPing ×20 ─────────│
//	  │── CalibrationPong, SeedCommit ▶│
//	  │◀────── MatchTiming ────────────│
//	  │◀────── SeedCommitments ────────│
//	  │── SeedReveal ─────────────────▶│
//	  │◀────── SeedResult ─────────────│
//	  │── OrderSubmit (every window) ─▶│
//	  │◀────── TickFrame (every tick) ─│  never late: Idle for the missing
//	  │── SyncHash (when asked) ──────▶│
//	  │◀── TimingFeedback (every 30) ──│
//	  │◀── LateNotice (when late) ─────│  added by the server from the
//	  │                                │  core's LateSubmission events
//
// # Lanes
//
// The join exchange travels on the orders lane. After it, in a lockstep
// room, each transport message carries exactly one lockstep/msg message, on the
// lane server/lanes assigns it: the orders lane (reliable, ordered,
// fragmenting, so a tick frame of any size the limits allow is
// delivered) or the control lane (calibration and client metrics). The
// third lane, State, carries the server-authoritative models' state.
//
// # Lockstep rooms
//
// One goroutine drives each room, with one timer armed at the core's
// NextDeadline (or the next statistics refresh). One reader goroutine per
// connection (the server's, for every model) stamps messages with the
// relay clock on arrival and queues them in the room's room.Inbox. The
// room goroutine takes everything queued at once, decodes it, feeds it to
// the core with Step (each message with its arrival time), advances the core's clock with Tick, sends the
// core's Ready messages (encoded once per message, for every recipient)
// and flushes the connections it wrote to together, with one
// transport.FlushGroup (one sendmmsg for the room on Linux), then calls
// Advance: a room's connections form one poll group. Before play it wakes for every
// message (calibration and the seed exchange answer as they go); during
// play only at the core's deadlines, since nothing a message causes is due
// earlier, which makes a game cost about one wake-up per tick.
// A room ends when its core reaches relay.PhaseEnded, when every
// connection is gone, or when the server closes; its remaining
// connections are then closed gracefully.
//
// A connection that ends removes its player (relay.Core.Leave: at a
// scheduled tick during play, so every client removes it on the same
// tick). A player the core removes has its connection closed. A peer
// whose reliable stream backs up (transport.ErrBackpressure) cannot keep
// up with the game and leaves it.
//
// # Clock and figures
//
// lanes.TransportConfig delays acknowledgements (lanes.DefaultAckDelay) past a tick
// interval: traffic flows both ways every tick, so acknowledgements ride
// on tick frames and order submissions instead of datagrams of their own.
//
// The relay clock is Config.Clock, by default the time since New; relay
// times in messages are microseconds of it. Stats returns cumulative
// counters (late orders, strikes, removals, QoS adjustments, desyncs,
// messages, refused joins by reason, expired rooms, rate-limited
// messages, wire bytes and datagrams), a per-room snapshot (lockstep
// figures refreshed about once a second) and per-model figures with each
// model's own metrics; Stats.AdminMetrics turns the labelled ones into
// admin metrics. Config.OnEvent sees every relay.Event of every lockstep
// room.
package server
