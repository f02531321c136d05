// Package statesync is tickwire's majority-hash state synchronisation for
// rooms of 100 and more players: every client simulates the game
// deterministically from the inputs the server broadcasts, reports a
// 32-bit xxHash of its whole state each frame, and the hash more than half
// of the voters reported is the truth. No client is trusted, and the
// server holds no game state.
//
// Two pure cores, driven by explicit inputs and an explicit now, hold the
// protocol: Server (one room) and Client (one player). Neither reads a
// clock, starts a goroutine or touches a socket; package statesync/host is
// the room shell inside tickwire's server, statesync/msg the messages.
//
// # One frame
//
//	server                               clients (all, independently)
//	  TICK f: inputs, versions,   ───▶     simulate f; hash the state;
//	  partition count, verdict on          compute the frame's structural
//	  an earlier frame, requests           delta; compute the sender
//	  to named clients                     assignment; am I a sender?
//	                              ◀───     STATE_HASH f (everyone, 9 bytes)
//	                              ◀───     STATE_DIGEST f (digest frames)
//	                              ◀───     PARTITION_DATA f (senders only)
//	  100 ms after TICK f: the hash (and digest) more than half of the
//	  voters reported, clients that disagree, partitions from their
//	  primaries only (a stranger's are dropped on arrival and held against
//	  it), missing ones asked of a backup candidate (tier 2) or any in-sync
//	  client (tier 3), assembled (tier 1..3) or skipped (tier 4).
//
// Nobody tells a client what to send: Assigner draws the senders from the
// frame, the versioned client list, the versioned reliability scores and
// the TICK's partition count, which every client has, with integer
// arithmetic only, so every client and the server draw the same.
//
// # Recovery, late join, quorum
//
// A client named in a verdict freezes at the next frame and sends its
// Merkle leaves (buckets of 16 entity ids); the most reliable in-sync
// client sends its own and keeps that frame's state. The server compares
// the trees, checks the provider's leaves against the frame's agreed
// SHA-256 state digest, asks the provider for the divergent buckets,
// checks them against the provider's leaves, and sends them to the desynced client as
// a PARTITION_CORRECTION, which it applies, checks against the majority
// hash, logs field by field (Differ) and replays from. A late joiner (or a
// recovery that failed) gets a full state assembled from partitions of the
// more reliable clients and checked against the majority hash and digest
// before it is sent. Below 60% of the peak client count for 5 s the room
// is read-only until the quorum is back (repairs go on); graceful leaves
// lower the peak and it decays.
//
// # Hostile clients
//
// Whatever a client sends costs the server bounded work: partitions only
// from assigned or asked senders, each checked and decompressed once,
// floods of HELLO and SyncRequest refused. Evidence of lying (a stranger's
// or a bad partition, state data that fails its checks, floods, repeated
// desyncs) is an Offence charged to the sender alone.
//
// # Games
//
// A game implements Engine: its state as entities with canonical
// encodings, and a deterministic Step. The hash, deltas, partitions, full
// state and Merkle leaves are computed here, once, over that.
package statesync
