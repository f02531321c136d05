// Package predict is tickwire's client-prediction network model: an
// authoritative server for action games, clients that predict their own
// inputs and reconcile with the server's snapshots, and a loopback layer
// so single player runs the very same code in process. It is pure: no
// clock, goroutine or socket (package predict/netlayer is the shell), and
// it knows no game: a game plugs in through the Game interface
// (predict/actiongame adapts the reference game, sim/action).
//
// # One simulation core
//
// SimulationCore steps a Game in one of two modes. Authoritative is the
// server's (and the local server emulation's); Predictive is a client's:
// its spawns take provisional negative ids and an event whose side effect
// already fired is not fired again when a replay recreates it.
//
// # Side effects exactly once
//
// An effect's identity is the action that caused it (player and action
// sequence, which name the originating input) and what happened (kind,
// type, target), never a tick: a cast predicted at tick 100 and applied
// by the server at 112 is one effect. The predictive core remembers every
// effect it fired (predicted or heard from the server) until nothing can
// bring it back: a heard effect until the anchor passes its tick; a
// predicted one until the server has ended its action (its EventRejected,
// or the EventDespawn of what it spawned, delivered on the reliable lane
// after every earlier event of the action) and the anchor passes that end;
// and nothing of an action whose input the server has not confirmed. A
// full memory (EffectMemory) stops effects from firing from the prediction
// (the server's events fire them) instead of forgetting any. Effects no
// action caused (a respawn) fire from the server's events, deduplicated by
// id. Every action a server takes is answered: applied (the game's events),
// refused by the game with its reason, or refused by the server
// (EventRejected of TypeRefused: late under LateReject, over the rate,
// queue full, invalid). TestEffectsExactlyOnceUnderLossBursts,
// TestLossySweep and FuzzClientReceive prove it.
//
// # The authoritative loop (Server)
//
//	Receive(now, player, msg)      validate the whole InputMessage, queue its inputs by intended tick
//	Tick(now)                      run every tick due (at most MaxCatchUp), each:
//	  take one input per client    its intended tick; late ones merged into it (LateApplyNext) or dropped
//	  SimulationCore.Step          the game's systems in their fixed order
//	  InputAck per applied input   LaneSequenced
//	  EventMessage per event       LaneReliable, monotonic ids, with the originating input sequence
//	  SnapshotMessage per client   LaneUnreliable; delta against the client's acknowledged baseline,
//	                               full when it holds none or every FullEvery ticks; with interest
//	                               management only the client's own entities, those near it (with
//	                               hysteresis) and those on a line of fire to it, within a
//	                               per-client budget (interest.go)
//	Ready / Advance                the encoded messages out
//
// # The client (Client)
//
//	Update(now, intent)   ping; predict each tick due (one numbered input per tick, applied at once);
//	                      send every unacknowledged input in one InputMessage at SendRate
//	Receive(now, msg)     Hello (tick rate, snapshot interval, baseline window, MaxAhead),
//	                      Pong (clock offset and RTT), InputAck (ack latency, late and clamped flags),
//	                      EventMessage (dedupe, provisional ids), SnapshotMessage (reconcile)
//	reconcile             stale? → rebuild delta → parity check → restore anchor → replay
//	                      unacknowledged inputs → correction: cause, magnitude, snap or blend
//	View(now)             own entities predicted (+ blend), remote ones interpolated
//	                      clamp(RTT, MinInterp, MaxInterp) in the past, extrapolated past the newest
//
// The client predicts ahead of the server by the estimated one-way
// delay, twice the RTT deviation, one send interval and LeadTicks, so an
// input reaches the server before its intended tick runs, but never by
// more than the server's MaxAhead less one tick; ticks an input sent now
// could no longer reach (one-way delay, the deviation and one tick of
// margin) are stepped without one, as the server will. The client keeps as
// many delta baselines as the server (both rings indexed by snapshot
// number); a delta against one it lacks makes it acknowledge none, which
// asks the server for a full snapshot. TestParitySweep proves a lone
// lossless client is never corrected at 20–128 Hz and 20–600 ms RTT.
//
// # Messages
//
// Every message is a wire message (type prefix, then fields). Integers
// marked uvarint/varint are LEB128 (zigzag for varint); fixed-width ones
// little-endian.
//
//	InputMessage 0x30 (client → server, sequenced; every unacknowledged input, oldest first)
//	+------+--------+----------------+-------+----------------------------------------+
//	| 0x30 | player | acked snapshot | count | input × count, each against the one    |
//	|      |   u8   |  tick uvarint  | uvar  | before it (the first against zero)     |
//	+------+--------+----------------+-------+----------------------------------------+
//	input: sequence − previous uvarint (≥ 1) | client tick − previous varint
//	       | intended tick − client tick varint | timestamp ms − previous varint
//	       | flags u8 (1 jump, 2 sprint, 4 same movement and view as the previous input)
//	       | [move x i8 | move y i8 | yaw u16 | pitch i16]   absent with flag 4
//	       | action count uvarint | action × count
//	action: id u8 | sequence uvarint | started at client tick uvarint | params (uvarint length, bytes)
//	acked snapshot 0: the client holds no baseline, the server sends a full snapshot
//
//	InputAck 0x31 (server → client, sequenced)
//	+------+--------+----------------+----------------+----------------+------------------------+
//	| 0x31 | player | sequence uvar  | applied tick   | server time µs | flags u8 (1 late,      |
//	|      |   u8   |                | uvarint        | uvarint        | 2 clamped to MaxAhead) |
//	+------+--------+----------------+----------------+----------------+------------------------+
//
//	CorrectionReport 0x33 (client → server, sequenced, ≤ 1/s while it changes)
//	+------+--------+--------------------+------------------+-------------------------------+
//	| 0x33 | player | corrections uvar   | hard snaps uvar  | buckets uvar (= 9), then 9 ×  |
//	|      |   u8   | (since the join)   | (since the join) | corrections uvar per bucket   |
//	+------+--------+--------------------+------------------+-------------------------------+
//	buckets: correction error ≤ 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4 world units, then larger
//	(telemetry for the server's dashboard; never used for the game)
//
//	SnapshotMessage 0x32 (server → client, unreliable)
//	+------+-------------+----------------+----------------+-----------+--------------+-----------------+
//	| 0x32 | server tick | server time µs | baseline tick  | late tick | clamped tick | interacted tick |
//	|      |   uvarint   |    uvarint     | uvarint (0 full)| uvarint  |   uvarint    |    uvarint      |
//	+------+-------------+----------------+----------------+-----------+--------------+-----------------+
//	| acked: count, (player u8, sequence uvarint)… | events: count, event… | header bytes |
//	| removed: count, id varint… | records: count, (id varint, data bytes)…               |
//	+-----------------------------------------------------------------------------------+
//	In a delta, a record the baseline holds is an XOR patch: a bitmask of the changed
//	bytes (one bit per byte) followed by the XOR of each changed byte; a new record is whole.
//
//	EventMessage 0x8050 (server → client, reliable)
//	event: id uvarint | tick uvarint | kind u8 | type u8 | player u8 | input sequence uvarint
//	       | action sequence uvarint | entity varint | target varint | value varint
//
//	Hello 0xC00060: player u8 | tick rate u16 | snapshot every uvarint | baseline window uvarint
//	                | max ahead uvarint | server tick uvarint | server time µs uvarint
//	Ping  0xC00061: client time µs uvarint
//	Pong  0xC00062: client time µs uvarint | server time µs uvarint | server tick uvarint
//
// Decoders never panic, size every allocation from the bytes received and
// accept one encoding per message (what decodes re-encodes to the same
// bytes); FuzzDecoders and FuzzApplyDelta check them, TestGoldenBytes pins
// the layouts.
package predict
