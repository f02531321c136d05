// Package msg defines the messages between lockstep clients and the relay
// and their encoding: the order submissions and tick frames of play, timing
// feedback, client metrics, sync-hash reports and desync notices, removal
// notices, the calibration pings of match start, the commit-reveal game
// seed exchange, the desync diagnosis walk, and reconnection by snapshot
// donor and observers.
//
// A message is a wire message type prefix followed by its fields, written
// with wire.Builder and read with wire.Reader. Orders travel inside as
// protocol.NativeCodec packets. Decode is strict: every count is checked
// against the remaining input before anything is allocated, every value
// against its range, and trailing bytes are an error; it never panics.
// Errors are *Error values wrapping ErrUnknownType, ErrMalformed, ErrRange
// or ErrOrders, and the wire or protocol error beneath.
//
// # Field notation
//
//	uv   unsigned LEB128 varint          zz   zigzag varint
//	u8 u16 u32 u64   little-endian fixed width
//	[n]  n raw bytes                     {x}* uv count, then that many x
//	orders = {uv length, NativeCodec packet}*  the packets of one tick;
//	         count 0 = no orders, else exactly one tick group equal to the
//	         message's tick with at least one order
//
// # Play (one-byte types)
//
//	OrderSubmit 0x20  client → relay, one per tick window (also the heartbeat)
//	+------+------+--------+----------+-------+-------------+--------+
//	| 0x20 | tick | sentUs | ackTick  | token | ackDelayUs  | orders |
//	|      |  uv  |   uv   |    uv    |  u32  |     uv      |        |
//	+------+------+--------+----------+-------+-------------+--------+
//	  tick       window the orders were issued in (client's estimate)
//	  sentUs     client's estimate of the relay clock at send, µs
//	  ackTick    newest frame applied; token = that frame's liveness token
//	  orders     SubTickTime of each order is the client's hint
//
//	TickFrame 0x21  relay → all, once per tick, never late
//	+------+------+-------+-------+----------+--------------------------------+--------+
//	| 0x21 | tick | token | flags | runAhead | {player uv, atTick uv, why u8}*| orders |
//	|      |  uv  |  u32  |  u8   |    u8    |   removal schedule             |        |
//	+------+------+-------+-------+----------+--------------------------------+--------+
//	  flags      bit 0: sync request, report SyncHash for this tick
//	  orders     canonical, chronological, relay-normalised sub-tick times;
//	             an Idle for each player that missed the deadline
//	  why        0 timeout, 1 lag-switch, 2 frozen, 3 no-commit, 4 no-reveal, 5 left
//
//	SyncHash 0x22  client → relay
//	+------+------+----------+
//	| 0x22 | tick | hash u64 |
//	+------+------+----------+
//
// # Control (two-byte types)
//
//	TimingFeedback 0x80 0x40  relay → one client, every 30 ticks
//	  avgArrivalDeltaUs zz | lateCount uv (≤ 65535) | jitterUs uv | recommendedOffsetUs zz |
//	  deadlineUs uv (≤ 2³²-1; the tick deadline of the frames that follow)
//	ClientMetrics  0x80 0x41  client → relay
//	  avgLatencyUs uv | avgFPS u16 | arrivalCushion i16 | tickProcessingUs uv
//	DesyncDetected 0x80 0x42  relay → all
//	  tick uv
//	PlayerRemoved  0x80 0x43  relay → all
//	  player uv | atTick uv (0 before the first tick) | why u8
//	LateNotice     0x80 0x44  relay → one client, per late submission
//	  tick uv | lateByUs uv (≤ 2³²-1) | strikes uv (≤ 65535)
//
// # Desync diagnosis (two-byte types; paired append and parse in desync.go)
//
//	DesyncDebugRequest 0x80 0x4A  relay → all, on a sync-hash mismatch
//	  tick uv | level u8 (0..3)
//	DesyncDebugReport  0x80 0x4B  client → relay
//	  tick uv | stateHash u64 | rng u64 | leaves uv (1..2²⁴) |
//	  n u8 (2, or 0 for one leaf) | n × child u64 (the root's children)
//	MerkleQuery        0x80 0x4C  relay → one client
//	  tick uv | depth u8 (≤ 24) | index uv (< 2^depth)
//	MerkleNodes        0x80 0x4D  client → relay, for an interior node
//	  tick uv | depth u8 (< 24) | index uv | left u64 | right u64
//	LeafEntities       0x80 0x4E  client → relay, for a leaf
//	  tick uv | leaf uv | label (uv length, ≤ 64 bytes UTF-8) |
//	  fields uv (≤ 64) × (uv length, ≤ 32 bytes UTF-8 name) |
//	  entities uv × (id uv (≤ 2³²-1) | fields × value zz)
//	DesyncReport       0x80 0x4F  relay → all, the walk's outcome
//	  tick uv | json (uv length, ≤ 1 MiB): desync_report_{seed}_{tick}.json
//
// # Match start (three-byte types)
//
//	CalibrationPing 0xC0 0x00 0x40  relay → client
//	  seq u16 | relaySendUs uv
//	CalibrationPong 0xC0 0x00 0x41  client → relay
//	  seq u16 | relaySendUs uv (echoed) | clientRecvUs uv | clientSendUs uv
//	MatchTiming     0xC0 0x00 0x42  relay → client, after calibration
//	  tickIntervalUs uv | runAhead u8 | deadlineUs uv | clockOffsetUs zz | submitOffsetUs zz
//	SeedCommit      0xC0 0x00 0x43  client → relay
//	  commitment [32]  = SHA-256(contribution || nonce)
//	SeedCommitments 0xC0 0x00 0x44  relay → all, once every commitment is in
//	  {player uv, commitment [32]}*
//	SeedReveal      0xC0 0x00 0x45  client → relay
//	  contribution [32] | nonce [16]
//	SeedResult      0xC0 0x00 0x46  relay → all
//	  seed u64 | startUs uv  (relay clock at which tick 0's window opens)
//	DebugLevel      0xC0 0x00 0x4C  relay → all, before SeedResult, if above 0
//	  level u8 (1 order log, 2 + cache validation, 3 + periodic snapshots)
//
// # Reconnection by snapshot donor and observers (rejoin.go)
//
//	SnapshotChunk   0x80 0x45  donor → relay, then relay → recipient unchanged
//	  tick uv | index uv | total uv (1..1024, index < total) | data uv length, 1..16384 bytes
//	SnapshotHash    0x80 0x46  relay → recipient: the agreed sync hash of tick
//	  tick uv | hash u64
//	SnapshotVerdict 0x80 0x47  recipient → relay
//	  tick uv | ok u8 (0 rejected: not the agreed hash; 1 loaded)
//	RejoinKeepalive 0x80 0x48  relay → recipient, once a second while it downloads
//	  nextTick uv | chunks uv (≤ 65535, relayed so far)
//	CaughtUp        0x80 0x49  rejoining player → relay: every frame applied
//	  tick uv
//	RejoinStart     0xC0 0x00 0x47  relay → recipient, once per donor asked
//	  seed u64 | startUs uv | tickIntervalUs uv | deadlineUs uv | runAhead u8 |
//	  attempt u8 | snapshotTick uv | delayTicks uv (an observer's; 0 for a player)
//	SnapshotRequest 0xC0 0x00 0x48  relay → donor: snapshot after applying tick
//	  tick uv
//	ObserverHello   0xC0 0x00 0x49  observer → relay, its first message
//	  delayTicks uv (≤ 2³²-1; the room's delay_ticks is the least it gets)
//	DigestRequest   0xC0 0x00 0x4A  relay → each witness: digest of the snapshot after tick
//	  tick uv
//	SnapshotDigest  0x80 0x60  witness → relay, then relay → recipient (the agreed one)
//	  tick uv | sha256 [32] (of the snapshot's bytes after applying tick)
//
//	  rejoining player              relay                         donor
//	  JoinRoom as rejoin ─────────▶ (away → rejoining)
//	          ◀──────────────────── RejoinStart{snapshotTick k}
//	                                SnapshotRequest{k} ─────────▶
//	                                DigestRequest{k} ──▶ every witness
//	          ◀── TickFrame k, k+1… (k asks everyone for SyncHash)
//	                                ◀── SyncHash{k} (majority = agreed)
//	          ◀──────────────────── SnapshotHash{k, agreed}
//	                                ◀── SnapshotDigest{k} (witnesses'
//	                                    strict majority = agreed)
//	          ◀──────────────────── SnapshotDigest{k, agreed}
//	                                ◀───────────── SnapshotChunk{k, i/n}…
//	          ◀──────────────────── SnapshotChunk{k, i/n}…
//	  sha256 = agreed digest, restore, hash = agreed?
//	  SnapshotVerdict{k, ok} ─────▶ (not ok: RejoinStart to the next donor)
//	  catch up k+1…; CaughtUp ────▶ (active again)
//
// The join messages that open every connection (0xC0 0x00 0x50..0x52)
// are not lockstep's: they are every model's, in package server/join.
//
// Times named ...Us on the relay clock are microseconds since the relay's
// epoch; a client converts with MatchTiming.ClockOffsetUs.
package msg
