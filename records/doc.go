// Package records keeps a server's match records in an embedded SQLite
// database (modernc.org/sqlite: pure Go, so CGO_ENABLED=0 builds still
// hold), and signs certified match results.
//
// One row a match, written when it starts (Start) and again when it ends
// (End): room, network model, match type, players with their public keys,
// start and end times, ticks, outcome, final hash, desyncs, removals with
// their reasons, QoS adjustments, the replay file and its hash. The
// database runs in WAL mode, so readers (`tickwire matches list`) work
// while the server writes; every write is one transaction, so a crash at
// any moment leaves the database intact. A match that was running when the
// server died has no end: Open marks such rows "unfinished".
//
// The schema is versioned in code (PRAGMA user_version): Open applies the
// migrations a database lacks, in order, each in a transaction.
//
//	matches(id INTEGER PRIMARY KEY, room, network_model, match_type,
//	        started_at, ended_at, ticks, outcome, final_hash, desyncs,
//	        qos_adjustments, replay_file, replay_hash)
//	match_players(match_id, player, name, public_key)
//	match_removals(match_id, player, at_tick, reason)
//
// Times are unix microseconds (UTC); final_hash and public keys are hex.
//
// # Certified results
//
// Certify signs a Record with the server's Ed25519 key: the signature is
// over "tickwire match result v1\n" followed by the record's canonical JSON
// (Go's encoding of Record: fixed field order, no extra spaces). Verify
// checks a Certificate against the server's public key.
package records
