// Package replay is tickwire's replay file: a signed, append-only record
// of one match that a crash cannot spoil. A relay writes it while the
// match plays (Encoder, and Recorder in the background so the room's
// tick never waits for a disk); Read gives back every whole record of a
// file, however it was cut; Verify checks the signature chain; the
// lockstep package's ReplayPlayback feeds the frames to a game loop, and
// "tickwire replay verify" re-simulates them against the recorded hashes.
//
// # File layout (format version 1)
//
// Integers are little-endian; uvarint is the unsigned LEB128 varint of
// encoding/binary (at most 10 bytes); str is a uvarint length and that
// many UTF-8 bytes (at most 255).
//
//	file     = magic "TWRP" (4) | version u8 = 1 | hlen uvarint | header (hlen bytes)
//	           | record*
//	header   = model str | game str | room str | started_unix_us i64 (8)
//	           | seed u64 (8) | map_seed u64 (8) | map_hash [32] | rules_hash [32]
//	           | tick_rate u16 | sign_every u16 | relay_key [32] (Ed25519 public)
//	           | nplayers uvarint | nplayers × player
//	           | deadline_min_us u32 | deadline_max_us u32
//	           | run_ahead_min u8 | run_ahead_max u8
//	player   = id u16 | klen u8 (0 or 32) | key [klen] (the player's Ed25519 identity)
//	record   = kind u8 | len uvarint | body (len bytes)
//
// Record kinds and bodies:
//
//	0x01 frame      tick uvarint | npackets uvarint | npackets × (plen uvarint | packet)
//	                the packets are the tick's orders in the native TLV order
//	                codec (protocol.NativeCodec, packet limit 64 KiB: one packet
//	                in normal play); they decode to exactly one TickOrders of
//	                this tick. Frames follow each other: tick n+1 after tick n,
//	                or after a gap that ends there.
//	0x02 qos        tick uvarint | old_deadline_us u32 | new_deadline_us u32
//	                | old_run_ahead u8 | new_run_ahead u8 | late_rate_bps u16
//	                | reason u8 (0 raise on the late rate, 1 lower after stable
//	                windows): the relay's QoS adjustment audit trail
//	0x03 sync       tick uvarint | hash u64: the state hash every client agreed
//	                on after tick (the server's own in the fog and prediction
//	                models)
//	0x04 lost       tick uvarint | count uvarint (≥ 1): the background writer
//	                lost count frames from tick on (its queue stayed full past
//	                its wait); the next frame is tick+count
//	0x05 signature  tick uvarint | sig [64]
//	0x06 footer     ticks uvarint | final_tick uvarint | final_hash u64
//	                | flags u8 (bit 0: incomplete) | lost_frames uvarint:
//	                the ticks played, the last known state hash and its tick
//	                (the last agreed sync hash in lockstep), and the frames
//	                the writer lost
//	0x07 input      tick uvarint | player u16 | dlen uvarint | data: one
//	                player's input of a tick in a model's own encoding
//
// # Signature chain
//
// The relay signs with its Ed25519 key after every sign_every frames and
// after the footer. Signature i signs
//
//	"tickwire replay signature v1\x00" | prev | tick u64 | SHA-256(segment)
//
// where prev is SHA-256 of the bytes before the first record (magic,
// version, hlen, header) for the first signature and the previous
// signature's 64 bytes after it, tick is the last frame tick the
// signature vouches for (the signature record's own field), and segment
// is the exact bytes of the records since the previous signature record
// (or since the header). Changing any byte of the file, header included,
// breaks the chain from the segment that holds it; Verify names the first
// tick of that segment. A lost record is itself a record (0x04): the
// chain stays whole across it and the footer flags the file incomplete —
// playable up to the gap, never ranked-verifiable.
//
// # Truncation
//
// Every record is written whole before the next, so a file cut at any
// byte (a crash) reads up to its last whole record: Read returns those
// with an error wrapping ErrTruncated. A file without a footer, or with
// records after its last signature, is not a finished replay; Verify
// reports the latter (ErrUnsigned) and the caller the former.
package replay
