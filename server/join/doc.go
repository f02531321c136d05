// Package join is the join exchange every network model shares: the
// three messages a client and the server trade before a model's own
// messages (JoinRoom, JoinAccepted, JoinRefused), their encoding, and
// Join, the client side of the exchange that every model's client calls
// (lockstep.JoinRelay, fogclient.Join, netlayer.Join, the state-sync
// bot).
//
// The server (package server) parses the first message of every
// connection with Parse, picks the room and the model, and answers with
// JoinAccepted or JoinRefused; then the room's model takes the
// connection. A refusal reaches the client as a *JoinError that wraps
// ErrRefused and one sentinel per reason (ErrRoomFull, ErrServerFull,
// …), the same for every model.
//
// A seat of a model that takes rejoins (room.Model.Rejoin) gets a rejoin
// secret in its JoinAccepted, drawn by the server from crypto/rand; a
// JoinRoom as AsRejoin with the seat's player and secret takes the seat
// again on a new connection. The secret is the server's, not a model's:
// any model that sets room.Model.Rejoin has it.
//
// Each message's Append and its parse sit side by side in one file
// (joinroom.go, joinaccepted.go, joinrefused.go). Parse is strict: every
// length is checked against the input and its bound, every value against
// its range, trailing bytes are an error; it never panics. Errors wrap
// ErrUnknownType, ErrMalformed or ErrRange.
//
// # Wire layout
//
// A message is a wire message type prefix (three bytes: 0xC0 0x00 and the
// type) followed by its fields. The layout is the one lockstep's relay
// protocol had before the exchange became every model's.
//
//	uv   unsigned LEB128 varint        u8 u16   little-endian fixed width
//	str  uv length, then that many bytes
//	[n]  n raw bytes
//
//	JoinRoom 0xC0 0x00 0x50  client → server, the first message, orders lane
//	+------+------+------+------+----------+----------+--------------+----+-------------------+
//	| 0xC0 | 0x00 | 0x50 | room | roomSize | netModel | matchType    | as | player  | secret  |
//	|      |      |      | str  |    u8    |   str    |    str       | u8 |   uv    |  [16]   |
//	+------+------+------+------+----------+----------+--------------+----+-------------------+
//	  room       ≤ 64 bytes
//	  roomSize   ≥ 1; not checked for a spectator or a rejoin
//	  netModel   ≤ 32 bytes; "" = the server decides
//	  matchType  ≤ 32 bytes; "" = none
//	  as         0 new player, 1 spectator, 2 rejoin; player and secret
//	             (not all zero) follow only for a rejoin
//
//	JoinAccepted 0xC0 0x00 0x51  server → client
//	+------+------+------+--------+----------+----------+----------+-----------+----------+
//	| 0xC0 | 0x00 | 0x51 | player | roomSize | tickRate | netModel | hasSecret | secret   |
//	|      |      |      |   uv   |    u8    |   u16    |   str    |    u8     |  [16]    |
//	+------+------+------+--------+----------+----------+----------+-----------+----------+
//	  player     ≤ 65535; 0 for a spectator
//	  netModel   ≤ 32 bytes: the room's model, asserted by the server
//	             (the trust label a lobby shows)
//	  hasSecret  0 (no secret follows: the model takes no rejoins), or 1
//	             and the seat's rejoin secret (not all zero)
//
//	JoinRefused 0xC0 0x00 0x52  server → client, then the server closes
//	+------+------+------+--------+--------+
//	| 0xC0 | 0x00 | 0x52 | reason | detail |
//	|      |      |      |   u8   |  str   |
//	+------+------+------+--------+--------+
//	  reason  0 room full (players or spectators), 1 server full (or the
//	          model's game limit), 2 size mismatch, 3 bad request,
//	          4 shutting down, 5 room size beyond the model's bound,
//	          6 too many waiting rooms from the address, 7 network model
//	          unavailable, 8 network model mismatch, 9 connect token (none
//	          for this room), 10 room not playing (a spectator or rejoin),
//	          11 rejoin denied (wrong player or secret), 12 not supported
//	          (the model or room takes no spectators or rejoins)
//	  detail  ≤ 200 bytes, for people
//
//	Leave 0xC0 0x00 0x53  client → server, orders lane: the player is done
//	+------+------+------+
//	| 0xC0 | 0x00 | 0x53 |      no fields; the room counts the seat as
//	+------+------+------+      gone, the connection stays open for the result
//
//	MatchResult 0xC0 0x00 0x54  server → client, orders lane, at the match's end
//	+------+------+------+-------------+
//	| 0xC0 | 0x00 | 0x54 | certificate |
//	|      |      |      |    bytes    |   uv length, then that many bytes
//	+------+------+------+-------------+
//	  certificate  1..65536 bytes: the signed match record, opaque here
//	               (cmd/tickwire sends records.Certificate as JSON)
//
// # The match's end
//
// When a room's match ends the server sends a MatchResult to every
// player seat still connected, or that left with Leave, then closes the
// connections ("game over"): the certified result of the match, signed by
// the server (Config.Certify in package server). A client keeps it with
// an Ending: its reader hands every message to Ending.Keep first, and a
// player done with the match calls Ending.Leave, which sends Leave and
// waits for the result. Leaving instead of closing matters for the models
// whose match ends when its last player goes (lockstep, prediction, state
// sync): a player that closed would not be there to receive it.
//
// Golden bytes of each message are pinned by TestJoinGolden.
package join
