// Package transport is tickwire's message transport over UDP: logical
// channels with their own reliability, ordering, priority, compression and
// fragmentation, multiplexed over one connection with selective
// acknowledgement by ack vectors, RTT measurement corrected by the peer's
// delay, loss detection, retransmission and a paced bandwidth budget.
//
// # Layers
//
// [Session] is the connection as a pure state machine (sans I/O): it takes
// datagrams and the current time, and yields datagrams to send and the next
// time it needs attention. It starts no goroutines, owns no socket and
// reads no clock, so tests drive it over a simulated network in virtual
// time and get exactly reproducible runs.
//
// [Conn] and [Listener] are the thin driver: they own a [net.PacketConn],
// one reader goroutine per socket, one goroutine and one timer per
// connection (armed at the Session's earliest deadline) and the compression
// worker pool. On Linux, UDP sockets are read and written in batches
// (recvmmsg/sendmmsg); any other PacketConn is used datagram by datagram.
// The goroutine that delivers a datagram, or calls Flush on a UDP
// connection, sends what is due itself and wakes the connection's
// goroutine only when its timer must fire earlier; a [FlushGroup] flushes
// several connections of a socket with one batch write (a game server's
// room after each tick).
// [Pipe] connects two Conns over an in-memory network for tests; the
// netsim package impairs any PacketConn for tests of bad networks. One
// Listener can serve several PacketConns ([Listener.Serve]): a UDP socket,
// a TCP listener ([Listener.ServeTCP]) and WebSocket requests
// ([Listener.WebSocketHandler]) share its limits and its Accept queue.
//
// # Channels
//
// A channel is one of Unreliable, UnreliableSequenced (older never after
// newer), Reliable (exactly once, unordered) and ReliableOrdered, with a
// [Priority] from Critical to Bulk and a weight. The scheduler serves
// priority levels strictly and shares a level among its channels by deficit
// round robin on their weights, within a [BandwidthBudget]: non-critical
// data may use at most 1-CriticalReserve of the budget and Bulk data at most
// BulkMaxFraction. Channel 0 is reserved for the handshake and disconnect.
// [StandardChannels] is the ready-made channel set of a game connection.
//
// Send never blocks: when a reliable channel's limits are reached it
// returns [ErrBackpressure] and the caller retries later; unreliable
// channels drop their oldest queued messages instead.
//
// # Datagram layout
//
// All integers are big-endian. Every datagram starts with a 10-byte header;
// a 14-byte acknowledgement section follows it when flag bit 1 is set:
//
//	 0       1       2       3       4       5       6       7
//	+-------+-------+-------------------------------+---------------+
//	|version| flags |         connection id         | datagram seq…
//	+-------+-------+-------------------------------+---------------+
//	 …sequence      |  peer delay   |    latest received sequence   |  ack section
//	+---------------+---------------+-------------------------------+  (flag bit 1)
//	|                     ack vector (64 bits)                      |
//	+---------------------------------------------------------------+
//
//	version           2
//	flags             bit 0: ping (acknowledge even without frames)
//	                  bit 1: the acknowledgement section follows
//	connection id     chosen by the client, constant for the connection
//	datagram sequence 32-bit serial number, +1 per datagram
//	peer delay        time from receiving "latest received" to sending
//	                  this datagram, in units of 8 µs; 0xFFFF = unknown
//	latest received   highest datagram sequence received from the peer
//	ack vector        bit N set: datagram (latest received - N) arrived
//
// A side sends the acknowledgement section while it owes an
// acknowledgement and for one RTT after the peer's latest ack-eliciting
// datagram (one with frames or a ping), so the section is repeated in case
// one is lost; a side that only receives acknowledgements sends none.
//
// The header is followed by frames, packed up to the MTU (default 1200):
//
//	 0       1       2       3       4       5
//	+-------+-------+---------------+---------------+
//	|channel| flags |   sequence    |    length     |
//	+-------+-------+---------------+---------------+
//	| fragment index| fragment count|  total size (32 bits)         |  only if fragment
//	+---------------+---------------+-------------------------------+
//	| payload (length bytes) ...
//
//	flags     bit 0 reliable, bit 1 sequenced, bit 2 fragment,
//	          bit 3 compressed, bit 4 last fragment, bit 5 to the end,
//	          bit 6 parity (see Redundancy; only bit 5 may join it)
//	sequence  per-channel 16-bit message sequence (serial arithmetic);
//	          it is also the fragment group id. Absent when bits 0-2 are
//	          all clear (an unfragmented Unreliable message, for which
//	          duplicated datagrams are dropped whole)
//	length    payload bytes. Absent with bit 5: the payload runs to the end
//	          of the datagram (the sender sets it on the last frame)
//	total     size of the reassembled payload
//
// So a 64-byte reliable message costs 10 + 4 + 64 = 78 bytes in a datagram
// of its own, and a 600-byte unreliable one 10 + 2 + 600.
//
// A parity frame (flag bit 6) is a repair or a report (see Redundancy). A
// repair (sequence = the first message of its window) carries one random-
// looking combination of the window's messages:
//
//	+----------------+----------------+-------------------------------+
//	| n-1 (1 byte,   | repair id      | Σ c(id,s)·(length_s ‖         |
//	| below 64)      | (1 byte)       | payload_s), zero-padded to    |
//	|                |                | the window's longest          |
//	+----------------+----------------+-------------------------------+
//	n: messages covered, sequences first..first+n-1; the sum is over
//	GF(2^8) (x^8+x^4+x^3+x^2+1) with Cauchy coefficients
//	c(id,s) = 1/((128 + id mod 128) ⊕ (s mod 128))
//
// A report (sequence = the receiver's next expected message: it holds
// every message before) is the single byte 0x80. So two messages "ab" and
// "c" (sequence 7 on channel 1) with repairs 0 and 1, then a report up to
// 9, give the frames 01 40 0007 0006 01 00 003491e5, 01 40 0007 0006 01
// 01 00e46bbb and 01 40 0009 0001 80 (TestParityGolden). A receiver that
// does not protect the channel ignores repairs; one that finds a parity
// frame on an unreliable channel, a repair covering 64 messages or more,
// or a symbol longer than 2 + min(channel maximum, 256), drops the
// datagram as a protocol error.
//
// A compressed payload (after reassembly) is a uvarint of the original size
// followed by one zstd frame and, when that frame alone is shorter than
// 1/256 of the original size, a zstd skippable frame (magic 0x184D2A50,
// 32-bit little-endian length, zeros) padding it to that ratio. See Limits
// for what the receiver checks.
//
// # Limits
//
// A peer's bytes never size an allocation by a number the peer wrote; the
// decoders size what they keep from what they received:
//
//   - Fragments. Every fragment but the last carries the same number L of
//     bytes, at least 73 (what a 128-byte MTU leaves with encryption and
//     the largest headers), and the last carries the rest (1 to L), so a
//     group declares count = ⌈total/L⌉ fragments and at most one per 73
//     bytes of its total, never fewer than two. A fragment inconsistent
//     with this, with its channel's maximum message size or with its group
//     is refused. A group reserves, when it starts, the most it may come to
//     hold: total + 2·count + count/8 bytes and a fixed overhead (184
//     bytes on 64-bit platforms); reservations never exceed MaxReassemblyBytes, so a started
//     group always completes. But its buffers grow only with the fragments
//     that arrive, and [Session.MemoryInUse] counts what they really hold
//     (their capacities), not the reservation.
//   - Compression. A channel configured CompressNever accepts no frame
//     with the compressed flag, and whether a channel may compress is part
//     of the configuration digest the handshake compares. A compressed
//     payload may declare at most 256 times its own size (after
//     reassembly) and at most the channel's maximum message size; both are
//     checked before the output is allocated, the decoder writes at most
//     the declared size, and a payload that does not decode to exactly
//     that size is refused. So one datagram of 1.2 kB yields at most about
//     300 kB. Structured data compresses 3 to 30 times at level 3; only
//     degenerate data (16 MiB of zeros: 9,300 times) goes past 256, and the
//     sender pads it to the bound, at most 1/256 of its size.
//   - Protocol errors. What only a faulty or hostile peer sends, although
//     it parses, is counted in [Stats].ProtocolErrors: a frame that breaks
//     its channel's configuration (unknown channel, wrong reliability,
//     compression on a channel that never compresses, a fragment on a
//     channel that does not fragment, over its size or cut inconsistently)
//     drops its whole datagram, unacknowledged (also counted in Malformed);
//     a fragment contradicting its group drops the group; a compressed
//     message past its bounds or not decoding to its declared size is
//     dropped (both also counted in the channel's Errors). The connection
//     stays up, as for any malformed datagram; [Config.MemoryBudget] ends
//     one that holds too much.
//
// # Reliability
//
// Each datagram's reliable frames are remembered until the datagram is
// acknowledged or declared lost: three later datagrams acknowledged (packet
// threshold) or 9/8 RTT elapsed since a later one was acknowledged (time
// threshold). Lost frames are queued again ahead of new data on their
// channel, and a retransmitted frame of up to 256 bytes of a channel
// without parity rides again in each of the next two datagrams sent, so
// that losing the retransmission too rarely costs another round trip. The
// copies only ride in datagrams sent anyway, never cause one. A
// retransmission timeout of srtt + 4·rttvar +
// ack delay, doubled on each expiry without progress, covers lost tails.
// RTT samples come from the acknowledgement of the latest datagram minus
// the peer's delay. A datagram is ack-eliciting when it carries a reliable
// frame or a ping; unreliable frames alone are acknowledged only in passing,
// except that one such datagram every half keepalive interval carries a
// ping, to keep RTT and loss figures current (the acknowledgements also
// spare the receiver its keepalives). Receivers acknowledge at once an
// ack-eliciting datagram that arrives out of order or makes a gap reach
// three datagrams (the sender's packet threshold), else after eight of
// them or the ack delay.
// Receivers keep a 4096-message window per reliable channel: ordered
// channels buffer out-of-order messages within it, unordered channels use
// it to drop duplicates; the sender never runs further ahead than the
// window.
//
// # Congestion control
//
// Reliable non-critical data (what can queue up: world chunks, assets,
// chat) is governed by a congestion controller ([Config.CongestionControl]).
// The default, [CongestionModel], is model-based after BBR: every
// acknowledgement yields a delivery-rate sample (the bytes acknowledged
// while the datagram was in flight over the longer of its send and
// acknowledgement intervals; samples taken while the application had
// nothing to send count only if they raise the estimate); the bottleneck
// bandwidth is the largest sample of the last ten round trips and the
// propagation delay the smallest RTT of the last ten seconds. Data is
// paced at the bandwidth estimate times a gain: 2.885 in Startup until
// the estimate stops growing by 25% for three rounds, its inverse in Drain
// until inflight is down to one bandwidth-delay product, then cycles of
// 1.25, 0.75 and six rounds of 1 (ProbeBW), with a ProbeRTT of 200 ms at
// four datagrams in flight when the min RTT is ten seconds old. In ProbeBW
// the window is one BDP plus a queue room that grows by one MTU per round
// and halves when a whole round's smallest RTT stays a quarter of the min
// RTT above it: flows sharing a bottleneck see the same queue and give
// room back together, so their shares converge (AIMD) and the queue stays
// short. Loss never lowers the rate, so random loss is not read as
// congestion. Except beside a loss-based flow (Cubic, Reno), which fills
// the queue instead of yielding: when over 16 rounds the queue is deeper
// than half the min RTT and than 1.5× what this flow's own room explains,
// the controller competes, with a window (inflightHi) raised by one MTU
// per round and cut to 0.7× after a round that lost a datagram while a
// queue stood, until a ProbeRTT finds the queue drained (see
// bbr_compete.go). Critical data, unreliable data and control messages are
// never held back; the [BandwidthBudget] pacer and MaxInFlightBytes stay
// upper bounds. [CongestionFixedWindow] keeps only the fixed window, for a
// LAN. [Stats] reports the estimate (EstimatedBandwidth), the window, the
// min RTT and the loss.
//
// Proved in virtual time over netsim's bandwidth queue (10 Mbit/s, 50 ms
// queue, 40 ms min RTT): one flow gets ≥ 90% of the link with a
// queueing delay p99 ≤ half the min RTT, where the fixed window fills the
// queue (TestCongestionOneFlow); two flows share it within 20%
// (TestCongestionTwoFlows); an 8 MiB message through 2% random loss and
// 20 ms each way takes ≤ 1.87 s with ≤ 8% more bytes on the wire
// (TestCongestionRandomLoss). Beside quic-go's Cubic, a tickwire flow
// takes between half and twice its fair share (bench/peers
// TestShareBesideQUIC, with the real quic-go in virtual time).
//
// # Redundancy
//
// Small reliable messages (up to 256 bytes, uncompressed) of a protected
// channel ([ChannelConfig].Redundancy: by default the Critical channels)
// are covered by a sliding-window code: after every R first
// transmissions a repair frame rides in the next datagram (or goes alone
// when the stream pauses), covering the channel's messages sent before
// that datagram and not yet acknowledged (at most 64). The receiver keeps
// its last 128 small messages and up to 16 repairs that still cover a
// missing message, and rebuilds every missing message its repairs
// determine (Gaussian elimination; with e messages missing, any e
// repairs covering them do), then reports in its next two datagrams how
// far it holds the channel, so that the sender acknowledges what was
// rebuilt. The sender holds the retransmission of a lost message a repair
// covers for R message intervals and a quarter RTT, the time the report
// takes. R comes from the measured loss (an average over about 512
// datagrams, corrected for its start), the smoothed RTT and the
// channel's message interval: a repair per six expected losses, R message
// intervals spanning at most a quarter of the RTT (in datagrams: a lost
// datagram erases all the messages it carries). Below 0.2% loss nothing
// is sent, so a clean path carries no redundancy at all; the first
// losses on a path find no repairs yet. Retransmissions of a protected
// channel get no extra copies. While repairs come (within a second), a
// datagram carrying only messages of protected channels is acknowledged
// after four ack delays or sixteen such datagrams instead of one delay or
// eight. [Stats] counts RedundancyBytes (repairs and reports) and the
// messages Recovered.
//
// Proved in virtual time: 500 messages of 128 bytes per second over
// 40 ± 10 ms each way with 3% loss and 1% duplication reach a p99 within
// 1.5× the path's floor (TestRedundancyUrgent; 1.31–1.40×, 170–173 bytes
// per message both directions, where no repairs give 2.8×); e lost
// messages of a window of up to 64 are rebuilt from any e repairs, fewer
// rebuild nothing (TestRepairRebuildsAnyErasures); the elimination
// determines exactly the messages brute force over every assignment does
// (TestEliminateMatchesBruteForce); a report spares the retransmission of
// what was rebuilt (TestRepairReportSparesRetransmission); a clean path
// sends no redundancy byte (TestRedundancyCleanPath).
//
// # Handshake and lifecycle
//
// A connection goes Disconnected → Connecting → Connected → Disconnecting →
// Disconnected. The client sends hello (version, digest of the channel
// configuration), the server answers hello-reply (accept with a server
// token, or reject with a reason) and the client confirms with ready
// (echoing the token). Until ready arrives the server retransmits its reply
// only when the hello is retransmitted, so a spoofed hello cannot make it
// send more than it received. The client pings after KeepAliveInterval of
// silence and the server answers; the server pings on its own only after
// one and a half intervals without a ping or reliable data from the
// client. IdleTimeout of silence ends the connection. Close delivers queued
// reliable data, then a disconnect message with a reason.
//
// # Security
//
// With [Config.Security] set, the driver runs the handshake of package
// secure before the connection exists, and protects every datagram after
// it; without it the plaintext hello/reply/ready exchange above is all
// (for trusted networks and tests). The plaintext exchange still runs, now
// inside the encrypted channel, to compare the channel configurations.
//
//	client                              server (per source: nothing)
//	Hello (64) ───────────────────────► HandleUnvalidated: stateless cookie
//	           ◄─────────────────────── Challenge (34)   [or Refuse: full]
//	Initiate (251) ───────────────────► cookie valid → limits, token →
//	                                    pending handshake (admitted)
//	           ◄─────────────────────── ServerHello (162) [or Refuse (19)]
//	Finish (130) + sealed hello ──────► Finish → Authenticated; the first
//	                                    datagram that opens creates the Conn
//	           ◄─────────────────────── sealed hello-reply
//
// Before the cookie the server keeps no per-source state and answers only
// a valid Hello, with fewer bytes than it received; anything else gets no
// answer. Encrypted connections are keyed by address (handshake packets
// carry no connection id). A pending handshake that sees no Finish and
// datagram within the unauthenticated idle time (60 s) is dropped and
// its admission slot released. The client resends its current handshake
// packet on a doubling timer (250 ms to 2 s) within HandshakeTimeout, and
// sends its Finish ahead of its datagrams until one from the server opens.
//
// Every datagram after the handshake keeps its header in clear, as the
// AEAD's additional data, and seals the frames (17 bytes more, so the
// Session's datagrams are MTU-17 bytes):
//
//	+-------------------------+-------+----------------------+---------+
//	| header (10 or 24 bytes) | flags | ciphertext of frames | tag(16) |
//	+-------------------------+-------+----------------------+---------+
//	nonce = IV xor 64-bit extension of the header's sequence; flags bit 0
//	is the key phase (rekey every RekeyAfter datagrams)
//
// Datagrams that fail authentication, repeat or predate the replay
// window are dropped and counted ([ListenerStats].Security, and per
// connection [Conn.Security]). Refusals (server full, per-IP count and
// rate, connect tokens) reach the client as Dial errors matching the
// secure package's sentinels, and are counted by reason in
// [ListenerStats].Handshake. [Config.MemoryBudget] bounds what one
// connection holds in queues, reassembly and undelivered messages; past
// it the connection ends with [ErrMemoryBudget].
//
// # Versions and unreachable servers
//
// Every datagram starts with [DatagramVersion] and the plaintext hello
// carries [HelloVersion]; a datagram of another version is dropped. The
// secure handshake names a mismatch instead of timing out: its Hello and
// Refuse keep their head and size in every version, and a server answers
// a Hello of another version with a 19-byte Refuse of its own version for
// secure.RefuseVersion, so Dial fails with secure.ErrVersion (and
// ErrHandshake) naming both versions. Version 1's packets are unchanged
// byte for byte (package secure has the rule and the layout).
//
// [DialUDP] dials from a connected UDP socket: the kernel reports ICMP
// errors about the server only on a connected socket, as the error of its
// next read. While the handshake runs, such an error (port unreachable:
// nothing listens there; host or network unreachable) ends Dial at once
// with [ErrUnreachable], wrapping the system's error (syscall.ECONNREFUSED,
// …), instead of waiting out HandshakeTimeout. The read loop, the shell,
// hands the error to Dial; the Session never sees it. Once connected such
// errors are transient, as on a listener's socket.
//
// # Fallbacks: TCP and WebSocket
//
// Where UDP is blocked the same datagrams, handshake and encryption run
// over a stream, so a Conn over TCP ([DialTCP], [ListenTCP]) or WebSocket
// ([DialWebSocket], [Listener.WebSocketHandler]) is the same *Conn with the
// same channel API. TCP frames each datagram with a length prefix (the
// framing of transport seed §5.2, applied to whole datagrams):
//
//	+----------------------+----------------------------------------+
//	| length (32 bits, BE) | datagram (length bytes, at most 65000) |
//	+----------------------+----------------------------------------+
//
// WebSocket carries one datagram per binary message (subprotocol
// "tickwire"), so a browser needs no framing of its own. A stream with a
// longer frame, or silent for IdleTimeout, is closed; a stream that ends
// ends its connection. Nothing is lost or reordered on a stream, so the
// driver runs the Session in reliable-link mode
// ([SessionParams].ReliableLink): no datagram carries the acknowledgement
// section (flag bit 1 stays clear), nothing is retransmitted or repeated,
// a reliable frame counts as delivered once written, and each side pings
// after KeepAliveInterval of its own silence, since nothing answers a
// ping; a receiver that cannot keep a reliable frame (its application
// stopped reading) ends the connection with [ErrMemoryBudget], telling the
// peer, as nothing would resend it.
//
// [DialHybrid] tries UDP, then TCP, then WebSocket, each within a timeout
// (seed §5.3), and stops at a handshake the server refused or failed,
// since the other transports reach the same server.
package transport
