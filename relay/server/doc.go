// Package server is the relay server: it hosts many concurrent lockstep
// games, each in a named room driven by a relay.Core, over transport
// connections.
//
// # Joining
//
// A client connects (transport.Dial with TransportConfig) and sends
// JoinRoom{Room, RoomSize} as its first message. The server seats it in
// the named room, creating the room on first use, and answers
// JoinAccepted{Player, RoomSize, TickRate}; player ids are 1..RoomSize in
// join order (a seat freed before the game starts is given to the next
// joiner). It answers JoinRefused and closes the connection when the room
// is full or already playing, when the room exists with another size, when
// creating the room would exceed Config.MaxGames, when the first message
// is not a JoinRoom, or when the server is closing. With
// Config.RequireToken it also refuses (RefuseToken) a connection whose
// secure handshake carried no connect token for the room it names.
//
//	client                         server
//	  │── JoinRoom{"r1", 4} ─────────▶│  seat 1..4, or JoinRefused + close
//	  │◀──────── JoinAccepted{3,4,30} ─│
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
// Each transport message carries exactly one relay/msg message. Lane maps
// a message to its channel of the transport.Lanes set:
//
//	lane                     reliability           messages
//	transport.LaneControl    unreliable sequenced  CalibrationPing, CalibrationPong,
//	                                               ClientMetrics
//	transport.LaneOrders     reliable ordered      every other message
//	transport.LaneChat       reliable ordered      (chat, not used by the relay)
//
// # Rooms
//
// One goroutine drives each room, with one timer armed at the core's
// NextDeadline (or the next statistics refresh). One reader goroutine per
// connection decodes messages, stamps them with the relay clock on
// arrival and queues them for the room. The room goroutine takes
// everything queued at once, feeds it to the core with Step (each message
// with its arrival time), advances the core's clock with Tick, sends the
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
// TransportConfig delays acknowledgements (DefaultAckDelay) past a tick
// interval: traffic flows both ways every tick, so acknowledgements ride
// on tick frames and order submissions instead of datagrams of their own.
//
// The relay clock is Config.Clock, by default the time since New; relay
// times in messages are microseconds of it. Stats returns cumulative
// counters (late orders, strikes, removals, QoS adjustments, desyncs,
// messages, wire bytes and datagrams) that are atomics, cheap to read at any rate,
// and a per-room snapshot refreshed about once a second. Config.OnEvent
// sees every relay.Event of every room.
package server
