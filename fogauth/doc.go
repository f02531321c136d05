// Package fogauth is tickwire's fog-authoritative network model, the
// maphack-proof mode: the server runs the simulation and each client
// receives only the entities its player can see.
//
// The package is pure: Room is the server side of one game and Client the
// client side, both driven by explicit inputs (messages, and for Room the
// relay clock as a duration) with no clock reads, goroutines or sockets.
// Packages fogauth/fogserver (a room of the relay server) and
// fogauth/fogclient run them over transport connections.
//
// # One tick of a Room
//
//	Step(Orders, Ack, Done) ... until the tick is due (later orders wait for the next)
//	Simulate: ValidateOrder each order ─ rejected? Rejection (tick, reason), reliable
//	          ApplyTick(valid) on the sim.Sim made by sim.New, as single player does
//	Publish:  fog per player: sight sources hash as last tick? re-list entities
//	          in the seen cells : recompute the cells (RadiusFogProvider)
//	          per client: visible set (spectators: union, or the full map)
//	            ─ diff against what the client ACKNOWLEDGED: Enter / Update / Leave
//	            ─ all fit the budget? send in ID order : priority accumulator
//	            ─ pack into StateUpdates of ≤ MaxMessageSize, remember them
//	EndTick:  next deadline; ticks already missed are skipped and counted
//
// Every delta is computed against the client's acknowledged state, so a
// change is sent again until a StateUpdate carrying it is acknowledged
// (an identical copy is left in flight for the resend time first); a
// StateUpdate whose acknowledgement never comes makes what it carried
// uncertain, and that is sent again too. The budget decides what goes
// out, and an entity that did not fit keeps its accumulated priority. See
// ARCHITECTURE.md for the seed's flaws this fixes.
//
// # Wire format (all integers little endian)
//
// Server → client, unreliable: the seed's StateUpdate. The client applies
// StateUpdates in tick order and drops one older than a tick it applied.
//
//	StateUpdate (13-byte header + deltas)
//	0  1  type 0x20
//	1  8  tick u64            authoritative tick
//	9  2  player u16          recipient
//	11 2  delta count u16
//	13 .. deltas, concatenated
//
//	EntityEnter (31 bytes)            EntityUpdate (7 bytes + fields)
//	0  1  0x01                        0 1  0x02
//	1  4  entity id u32               1 4  entity id u32
//	5  2  entity type u16             5 2  field mask u16 (bits 9-15 reserved:
//	7  1  owner u8 (0 = neutral)               set → the message is rejected)
//	8  12 x, y, z i32                 7 .. fields of the set bits, bit 0 first:
//	20 2  health u16                       0 position 12  1 health 2
//	22 2  health max u16                   2 facing 4     3 target 4
//	24 4  facing i32 (WAngle)              4 flags 2      5 cargo 1
//	28 2  state flags u16                  6 animation 1  7 veterancy 1
//	30 1  animation u8                     8 owner 1
//
//	EntityLeave (5 bytes): 0 0x03, 1 entity id u32
//
// An Enter lacks target, cargo and veterancy; when they are not zero the
// server follows the Enter with an Update of them in the same StateUpdate.
// A StateUpdate never exceeds Config.MaxMessageSize (one datagram); a tick
// that needs more sends several, each self-contained. A tick with nothing
// to send still sends one empty StateUpdate, so the client sees time pass.
//
// Control messages: Orders and Rejection reliable-ordered, Ack unreliable
// (each names a StateUpdate in several consecutive Acks):
//
//	Orders                      Ack (3 + 12·n bytes)        Rejection (11 bytes)
//	0 1 type 0x21               0 1  type 0x22              0 1 type 0x23
//	1 . one packet of the       1 2  n u16                  1 8 tick u64
//	    native TLV order codec  3 12·n (tick u64,           9 1 reason u8
//	    (package protocol)             first entity u32)    10 1 order kind u8
//
//	MatchStart (16 bytes)         MatchEnd (33 bytes)             Done (1 byte)
//	0 1 type 0x24                 0  1 type 0x25                  0 1 type 0x26
//	1 2 tick rate u16             1  8 tick u64                   client → server:
//	3 1 players u8                9  4 entities in the view u32   the player has
//	4 2 units per player u16      13 8 view hash u64 (ViewHash)   played its ticks
//	6 2 map size u16              21 4 max stale ticks u32
//	8 8 map seed u64              25 4 server tick p99 µs u32
//	                              29 4 cost excl. sim p99 µs u32
//
// An Ack names each StateUpdate the client applied, in the order it
// applied them, by its tick and the entity of its first delta (unique
// within a tick; StateUpdates without deltas are not acknowledged). A
// rejection reason is a sim.OrderValidity, or RejectRate, RejectSpectator or RejectFinished.
//
// # Client side
//
// Client decodes StateUpdates into a PartialWorld (ClientEntity per the
// seed: state, velocity estimated from position deltas, interpolation from
// the previous position over one tick, snapping past MaxUnitSpeed × ticks
// elapsed, prediction along the last velocity) and acknowledges them. A
// PartialWorld is what a bot reads (bot.World), so bots play from what
// their client received and nothing else.
package fogauth
