// Package netsim impairs datagram traffic for tests and experiments: a
// net.PacketConn wrapper adding seeded latency, jitter, loss (independent
// and Gilbert–Elliott bursts), duplication, reordering, corruption and a
// bandwidth limit, independently per direction; an in-memory network for
// tests; and a UDP proxy applying the same impairment between real
// processes (the "tickwire netsim" command).
//
// It implements the network condition simulation of the architecture
// document (NetworkSimConfig) and imports only the standard library, so
// the transport and its tests can build on it.
//
// # Model
//
// Each direction is a Link, modelled by a Path. A packet entering a Path
// at time now goes through these stages, in this order:
//
//	WriteTo / arrival at now
//	       │
//	       ▼
//	┌──────────────────────────┐  busy: bytes not yet serialised
//	│ bandwidth queue (FIFO)   │──► full (> QueueLimit)? ──► drop: queue
//	│ leaves at depart =       │  (BandwidthBps = B bytes/s)
//	│  max(now, busy) + size/B │
//	└──────────────────────────┘
//	       │
//	       ▼
//	Gilbert–Elliott chain, one step per packet:
//	          Enter
//	    Good ───────► Bad      then lose it with GoodLoss in Good
//	         ◄───────          or BadLoss (default 1) in Bad
//	          Exit
//	       │
//	independent Loss
//	       │──► lost by either? ──► drop: burst / loss
//	       ▼
//	corrupt? flip one random bit (packet still delivered)
//	       │
//	       ▼
//	at = depart + Latency + U[-Jitter, +Jitter]   (never before depart,
//	     raised to the previous arrival if earlier: jitter keeps order)
//	reorder? at += ReorderDelay                  (later packets overtake)
//	duplicate? a copy at the same rule, after the original
//	       │
//	       ▼
//	delivered at `at` (and the copy at its own time)
//
// A Bottleneck is one Path shared by several PacketConns (Config.OutVia),
// so that flows of different connections, or of different transports,
// queue together as at a real bottleneck.
//
// Path is pure: Decide(now, size) returns a Decision and touches no clock,
// goroutine or socket, so the model is tested exhaustively without them.
// Each impairment draws from its own math/rand/v2 PCG generator derived
// from the seed, the direction and the impairment, so a seed and a
// sequence of packets always give the same decisions, and enabling one
// impairment does not change the decisions of another.
//
// Jitter keeps packet order, as on a real FIFO path: a packet whose draw
// would overtake the previous one arrives together with it. (Linux netem
// draws jitter independently and so reorders heavily at high packet
// rates, which makes any transport with a reordering threshold, such as
// QUIC, see spurious losses; Link.JitterReorders asks for that.) Apart
// from it, Reorder is the only source of reordering: a
// reordered packet is held back by ReorderDelay (default 20 ms), so
// packets sent within that time overtake it. Link.DeliveryInterval
// releases packets in bursts on a grid, as a receiver woken by a coarse
// timer sees them (or a path that aggregates acknowledgements).

// # Shell
//
// Wrap returns a PacketConn whose two directions each run one scheduler
// goroutine: packets wait on a time-ordered heap (ties keep their sending
// order) and a single timer wakes the goroutine at the earliest delivery.
// A third goroutine reads the wrapped connection into the In direction.
//
//	         WriteTo ──► Path(Out) ──► heap ──timer──► wrapped.WriteTo
//	app                                                              network
//	         ReadFrom ◄── read queue ◄── heap ◄── Path(In) ◄── wrapped.ReadFrom
//
// Everything uses the time package, so inside a testing/synctest bubble
// the impairment runs in virtual time: delays are exact and tests are
// instant. Use MemNetwork endpoints there, since real sockets do not block
// durably. Stats reports packets and bytes offered and delivered, drops by
// cause, duplicates, reordered and corrupted packets.
//
// # NAT
//
// MemNetwork.AddNAT puts a NAT in the in-memory network: endpoints made by
// NAT.ListenPacket have private addresses and reach the rest of the
// network through the NAT's public address with a mapped port. Mapping
// and filtering follow NATConfig.Kind (port-restricted cone, full cone,
// symmetric); a mapping expires BindingTimeout after its last outgoing
// packet and the next one gets a new port; Delay is added between the
// NAT and the rest of the network. A packet sent with a TTL of 2 or less
// (MemConn.SetTTL) opens its mapping and dies past the NAT.
//
// # Proxy
//
// Proxy relays between clients and one upstream server, with one upstream
// socket and one pair of impaired links per client (Up: client→server,
// Down: server→client), a cap on clients and idle expiry.
package netsim
