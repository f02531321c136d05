// Package msg encodes and decodes the messages of tickwire's state-sync
// network model (package statesync): the seed design's STATE_HASH,
// PARTITION_DATA, PARTITION_REQUEST, TICK and RELIABILITY_UPDATE with the
// fixes of its critical analysis (versioned client list and scores, frame
// in every submission), plus the messages that desync recovery and late
// join need. It imports only wire and the standard library.
//
// Every message is a one-byte wire type followed by fields written with a
// wire.Builder. Fixed-width numbers are little-endian. "bytes" is a
// wire Bytes field (LEB128 length, then the bytes); "list" is a LEB128
// count followed by that many elements. Lists of ids, buckets and clients
// are strictly ascending, so each message has exactly one encoding and
// Parse rejects anything its encoder could not have written. Every list count
// is checked against the bytes left at the smallest encoding of its
// element (ids 4 bytes, leaves 12, scores 6, requests 9, inputs 5), so
// Parse allocates only for elements the message really holds: at most 1×
// the message's length for ids, 1.4× for leaves, scores and requests,
// and 6.4× for a TICK's inputs (a 32-byte slot per 5-byte input); byte
// fields alias the message.
//
// # Client to server
//
//	STATE_HASH 0x30 (9 bytes, as in the seed)
//	+------+-----------+-----------+
//	| 0x30 | frame u32 | hash u32  |
//	+------+-----------+-----------+
//
//	INPUT 0x02 (the server puts it in the next TICK it broadcasts)
//	+------+------------+
//	| 0x02 | data bytes |
//	+------+------------+
//
//	PARTITION_DATA 0x31 (seed: 1-byte partition id and u16 length; a room
//	of 1,000 clients has up to 500 partitions, so ids are u16, and the
//	sender's client-list version travels with the data)
//	+------+-----------+-----------------+----------+-----------+---------+------------+
//	| 0x31 | frame u32 | listVersion u32 | part u16 | parts u16 | enc u8  | data bytes |
//	+------+-----------+-----------------+----------+-----------+---------+------------+
//	enc: 0 raw, 1 zstd frame. part < parts.
//
//	MERKLE_LEAVES 0x37
//	+------+-----------+--------------------------------------+
//	| 0x37 | frame u32 | list of (bucket u32, leafHash u64)   |
//	+------+-----------+--------------------------------------+
//	leafHash: the first 8 bytes of the SHA-256 of the bucket's entity set;
//	the state digest is the SHA-256 of this list, so leaves can be checked
//	against the digest the voters agreed on.
//
//	ENTITY_DATA 0x38
//	+------+-----------+---------+----------+-----------+--------+------------+
//	| 0x38 | frame u32 | kind u8 | part u16 | parts u16 | enc u8 | data bytes |
//	+------+-----------+---------+----------+-----------+--------+------------+
//	kind 1: full-state partition part of parts; kind 2: requested buckets
//	(part = parts = 0). data is an entity set (package statesync).
//
//	STATE_DIGEST 0x3E (sent for the frames whose TICK has the digest flag:
//	checkpoints of recoveries and full states, and one frame a second;
//	the vote stays on the 9-byte hash, the digest guards what changes a
//	client's state)
//	+------+-----------+--------------+------------------------------+
//	| 0x3E | frame u32 | entities u32 | digest: 32 bytes (SHA-256)   |
//	+------+-----------+--------------+------------------------------+
//	digest: SHA-256 over the state's Merkle leaves as MERKLE_LEAVES lists
//	them (bucket u32, leafHash u64, each leaf of a non-empty bucket in
//	ascending order); entities: how
//	many entities it holds, from which the server computes the frame's
//	partition count.
//
//	SYNC_REQUEST 0x36
//	+------+---------+
//	| 0x36 | what u8 |   bit 0 reliability, bit 1 client list, bit 2 full state
//	+------+---------+
//
//	HELLO 0x3C, BYE 0x3D (no fields): the client (re)joins the room, or
//	leaves it, keeping its connection.
//
// # Either way
//
//	CHUNK 0x3F: one piece of a message larger than a datagram, on a
//	reliable ordered channel that does not fragment; pieces travel
//	consecutively and in order (Split, Reassembler).
//	+------+----------+----------+------------+
//	| 0x3F | index u8 | count u8 | data bytes |   2 <= count <= 255, index < count
//	+------+----------+----------+------------+
//
// # Server to client
//
//	TICK 0x01
//	+------+-----------+-----------------+-----------------+----------+
//	| 0x01 | frame u32 | relVersion u32  | listVersion u32 | flags u8 | parts u16 |
//	+------+-----------+-----------------+-----------------+----------+-----------+
//	| inputs: list of (client u32, data bytes), ascending clients      |
//	+------------------------------------------------------------------+
//	| if flags&1, verdict: frame u32, majorityHash u32,                |
//	|                      desynced: list of client u32                |
//	+------------------------------------------------------------------+
//	| if flags&2, assembled: frame u32, deltaHash u32, delta bytes     |
//	+------------------------------------------------------------------+
//	| requests: list of (client u32, kind u8, part u16, parts u16)     |
//	+------------------------------------------------------------------+
//	flags: bit 0 verdict, bit 1 assembled, bit 2 read-only (no quorum),
//	bit 3 digest (every client sends STATE_DIGEST for this frame).
//	parts: the frame's partition count, the server's own.
//	kind 1 freeze (send leaves, hold this frame), 2 leaves (send leaves,
//	keep this frame's state), 3 full-state partition part of parts,
//	4 resync (stop after this frame and wait for a FULL_STATE).
//
//	PARTITION_REQUEST 0x32 (seed: 6 bytes; here parts travels too, and
//	parts = 0 asks for every partition of the frame)
//	+------+-----------+----------+-----------+
//	| 0x32 | frame u32 | part u16 | parts u16 |
//	+------+-----------+----------+-----------+
//
//	RELIABILITY_UPDATE 0x33 (scores 1.14 fixed point: 16384 = 1.0)
//	+------+-------------+-------------------------------------+
//	| 0x33 | version u32 | list of (client u32, score u16)     |
//	+------+-------------+-------------------------------------+
//
//	CLIENT_LIST_UPDATE 0x34 (ACTIVE clients only)
//	+------+-------------+---------------------+
//	| 0x34 | version u32 | list of client u32  |
//	+------+-------------+---------------------+
//
//	PARTITION_CORRECTION 0x35
//	+------+-----------+------------------+-------------------------+--------+------------+
//	| 0x35 | frame u32 | majorityHash u32 | digest 32 bytes | buckets: list of u32 | enc u8 | data bytes |
//	+------+-----------+------------------+-----------------+----------------------+--------+------------+
//	digest: the SHA-256 state digest more than half of the frame's voters
//	agreed on; the corrected state must have it.
//
//	ENTITY_REQUEST 0x3B
//	+------+-----------+-------------------------+
//	| 0x3B | frame u32 | buckets: list of u32    |
//	+------+-----------+-------------------------+
//
//	FULL_STATE 0x39
//	+------+-----------+------------------+----------+-----------+--------+------------+
//	| 0x39 | frame u32 | majorityHash u32 | digest 32 bytes | part u16 | parts u16 | enc u8 | data bytes |
//	+------+-----------+------------------+-----------------+----------+-----------+--------+------------+
//	digest: as in PARTITION_CORRECTION; the server checked the merged
//	state against it before sending.
//
//	WELCOME 0x3A
//	+------+------------+-----------+------------+--------------+
//	| 0x3A | client u32 | frame u32 | tickHz u16 | bootstrap u8 |
//	+------+------------+-----------+------------+--------------+
package msg
