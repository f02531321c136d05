// Package secure is the cryptographic core of tickwire's transport
// security: a stateless address-validating handshake with X25519 key
// agreement and Ed25519 identities, optional matchmaker connect tokens,
// AES-256-GCM datagram protection with sequence-bound nonces, a replay
// window and key updates, the server-side connection lifecycle as types,
// and connection limits.
//
// Everything here is pure: no sockets, no goroutines, no clock reads. The
// current time is passed in and randomness comes from an io.Reader
// (crypto/rand.Reader in production, a seeded reader in tests), so
// handshakes are reproducible byte for byte. The transport driver owns the
// socket and the timers and calls in: setting transport.Config.Security
// runs this handshake and protection on UDP, TCP and WebSocket connections.
//
// # Handshake
//
//	Client                                           Server
//	Hello (64, zero-padded)            ──────────►   stateless: cookie = MAC(secret,
//	                                                 bucket, address, port, nonce)
//	                                   ◄──────────   Challenge (34)
//	Initiate (251): cookie, client     ──────────►   cookie valid → address validated;
//	  X25519 key, connect token                      limits, token; connection created
//	                                   ◄──────────   ServerHello (162): server X25519 key,
//	                                                 sealed{server identity, signature}
//	Finish (130):                      ──────────►   identity and signature checked
//	  sealed{client identity, signature}
//	established                                      established
//
// Before the cookie is validated, the server answers only a valid Hello,
// with a 34-byte Challenge (or a 19-byte Refuse when full): it never sends
// more bytes than it received, and malformed, wrongly sized or unknown
// packets get no answer at all. After validation each answer (ServerHello
// 162, Refuse 19) is still smaller than the Initiate (251). An Initiate
// whose cookie is bad is dropped silently.
//
// All handshake packets have an exact size, start with a type byte
// (0xE1-0xE6, never a transport datagram's first byte) and the version (1),
// then the client's 16-byte random nonce, echoed by the server so a
// blind attacker cannot inject answers:
//
//	Hello        E1 | 01 | nonce(16) | zero(46)                                         64
//	Challenge    E2 | 01 | nonce(16) | cookie(16)                                       34
//	Initiate     E3 | 01 | nonce(16) | cookie(16) | client X25519(32) | flags(1)       251
//	                | token(184), all zero unless flags bit 0
//	ServerHello  E4 | 01 | nonce(16) | server X25519(32)                               162
//	                | AEAD(server hs key){server Ed25519(32) | signature(64)} | tag(16)
//	Finish       E5 | 01 | nonce(16)                                                   130
//	                | AEAD(client hs key){client Ed25519(32) | signature(64)} | tag(16)
//	Refuse       E6 | 01 | nonce(16) | reason(1)                                        19
//
// # Versions
//
// Every version keeps the Hello and the Refuse as they are: type byte,
// version, nonce first, 64 and 19 bytes. A server answers a Hello of
// another version with a Refuse of its own version and the reason
// RefuseVersion (7), and a client that gets a Refuse of another version
// (or for RefuseVersion) fails with ErrVersion, naming the server's
// version and its own, instead of waiting out the handshake timeout:
//
//	Hello        E1 | 02 | nonce(16) | …                       64   (a version 2 client)
//	Refuse       E6 | 01 | nonce(16) | 07                      19   (this version 1 server)
//
// Version 1's packets are byte for byte what they were before this rule;
// a version 1 server from before it drops a Hello of another version
// without an answer.
//
// # Key schedule
//
// With HKDF-SHA256 and H = SHA-256 over concatenated messages:
//
//	prk          = HKDF-Extract(salt "tickwire secure v1", X25519(client eph, server eph))
//	th1          = H(Initiate | ServerHello clear part)
//	s hs, c hs   = HKDF-Expand(prk, "s hs "|th1), HKDF-Expand(prk, "c hs "|th1)
//	server sig   = Ed25519(server, "tickwire secure v1 server signature\0" | H(Initiate | SH clear | server key))
//	client sig   = Ed25519(client, "tickwire secure v1 client signature\0" | H(Initiate | ServerHello | client key))
//	th           = H(Initiate | ServerHello | Finish)
//	c ap, s ap   = HKDF-Expand(prk, "c ap "|th), HKDF-Expand(prk, "s ap "|th)
//	key, iv      = HKDF-Expand(secret, "key", 32), HKDF-Expand(secret, "iv", 12)
//	next secret  = HKDF-Expand(secret, "ku", 32)
//
// Each side signs a transcript that includes both ephemeral keys and its
// own identity, and seals the identity and signature under a key only the
// DH partner can derive, so the channel is bound to both identities (seed
// 001's identity binding) and identities are hidden from passive
// observers. A client that pins the server key rejects any other with
// ErrServerKeyMismatch. The traffic keys depend on the whole transcript.
//
// # Datagram protection
//
// The transport's datagram header stays in clear and is authenticated as
// AEAD additional data; the payload is sealed:
//
//	+------------------+-------+----------------------------+---------+
//	| transport header | flags | ciphertext (payload bytes) | tag(16) |
//	+------------------+-------+----------------------------+---------+
//	flags: bit 0 key phase, bits 1-7 zero. Overhead: 17 bytes.
//
// The GCM nonce is the direction's IV XOR the 64-bit datagram sequence (the
// header's 32-bit sequence, extended as QUIC extends packet numbers), so a
// datagram opens only with the sequence it was sealed with and a replay is
// caught by a 1,024-datagram sliding window. Each direction moves to its
// next key phase after RekeyAfter datagrams (default 2^23, AES-GCM's
// confidentiality limit in RFC 9001); the receiver tries the next keys when
// the phase bit flips, keeps the previous keys for reordered stragglers, and
// old secrets cannot be recomputed from new ones.
//
// # Connect tokens
//
// A matchmaker signs a 184-byte token naming the server's key, the
// player's key, the room or match it admits to (RoomID, the SHA-256 of the
// room's name), the player's id, an expiry and a nonce (see Token for the
// layout, token_test.go for golden bytes). A server with a matchmaker key
// admits only clients whose Initiate carries a token that verifies, names
// it and has not expired, and whose Finish is signed by the player key the
// token names; the application then checks the room (Token.ForRoom): the
// relay server refuses a join for any room but the token's.
//
// # Lifecycle and limits
//
// Server.Accept returns an Unauthenticated connection, which can only
// complete the handshake; Finish returns an Authenticated one, which can
// exchange datagrams and StartGame into InGame, the only type game-order
// code accepts. Admission enforces the seed's limits (1,000 connections,
// 5 per IP, 10 new per second per IP, idle 60 s unauthenticated and 5 min
// authenticated), creating per-address state only after cookie validation,
// in a bounded table, and counting every refusal.
package secure
