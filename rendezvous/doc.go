// Package rendezvous lets a player behind a home router host a game that
// a friend behind another joins with a join code, no port forwarded: a
// rendezvous server assigns the code and brokers a UDP hole punch between
// the host's game socket and the joiner's, and names a relay route for
// when punching fails (symmetric NATs, firewalls). It never sees game
// data on a punched path.
//
// # Pieces
//
//   - Server: the rendezvous's pure core (Handle(now, from, datagram)
//     returns datagrams to send), holding only short-lived codes; Service
//     serves it on a socket ("tickwire rendezvous").
//   - RelayPool: relay routes, one socket per session, forwarding between
//     the two ends once both have bound with the session's token.
//   - Host: a listen server's side: registers, keeps its NAT binding and
//     code alive, re-registers when its public endpoint moves, punches
//     toward each announced joiner and binds its relay route.
//   - Signaling (the seed's trait, joiner's side) with Rendezvous, Direct
//     and Memory; Connect turns an answer into a Route with its Path
//     (punched, relayed or direct).
//   - Conn: one socket shared by this protocol and the transport, which
//     reads only what is not a rendezvous datagram.
//
// # Exchange
//
//	host ── Register{room, key, candidates, uses} ──▶ rendezvous
//	host ◀── Registered{code, secret, observed} ──── rendezvous
//	host ── Register{code, secret} every Keepalive ▶ (moves the code if the NAT rebound)
//	joiner ── Resolve{code} ────────────────────────▶ rendezvous
//	host ◀── Peer{session, token, joiner, relay} ─── rendezvous
//	host ── Probe, TTL 2 ──▶ (opens the host's NAT toward the joiner, dies before its router)
//	host ── Ready{code, secret, session} ───────────▶ rendezvous
//	joiner ◀── Answer{session, token, room, key, host, candidates, relay}
//	joiner ── Probe ──▶ host ── Probe(ack) ──▶ joiner: punched
//	(after PunchConfig.Timeout) joiner ── Bind ──▶ relay ◀── Bind ── host: relayed
//
// # Wire format
//
// Every datagram starts with the 4 bytes "TWR1" and a kind byte. Strings
// and keys are a length byte and bytes (room ≤ 64, code ≤ 16, key 0 or
// 32); an endpoint is 16 bytes of IPv6 (IPv4 mapped) and a 2-byte port,
// all zero for none; lists are a count byte (≤ 4) and items. Integers
// are big-endian.
//
//	Register   1: code str, secret [16], uses u8, room size u8, room str, key str, candidates
//	Registered 2: code str, secret [16], observed endpoint
//	Resolve    3: code str
//	Peer       4: session u64, token [16], joiner endpoint, relay endpoint
//	Ready      5: code str, secret [16], session u64
//	Answer     6: session u64, token [16], room size u8, room str, key str, host endpoint,
//	              candidates, relay endpoint, joiner's observed endpoint
//	Reject     7: reason u8, code str
//	Probe      8 ┐ session u64, role u8 (0 relay, 1 host, 2 joiner),
//	Bind       9 ┘ ack u8, nonce u64, mac [16]: 39 bytes exactly
//
// mac is HMAC-SHA256 keyed by the session's token over the bytes before
// it, truncated to 16 bytes. The token never crosses the wire between
// the ends, so a third address cannot forge a probe or a bind; a relay
// takes a bind only with a nonce above the last it took from that role,
// so a replayed bind moves nothing. The transport's handshake, pinning
// the host's key from the answer, follows on the path found.
//
// A malformed datagram gets no answer. Each variable part is bounded and
// checked against the bytes present before it is taken, so decoding
// allocates no more than the datagram holds.
package rendezvous
