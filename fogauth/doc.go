// Package fogauth is tickwire's fog-authoritative network model, the
// maphack-proof mode: the server runs the simulation and each client
// receives only the entities its player can see.
//
// # Non-interference
//
// What a player cannot see never changes a byte it receives: the bytes
// sent to a client (StateUpdates, Rejections, the MatchEnd built by
// MatchEnd) are a function of its own messages and of what its player
// sees, tick by tick: the entities in its visible cells and its own
// (their state, a target only if visible too), and its own credits. By
// construction:
//
//   - orders are validated against the player's knowledge, the entities
//     its fog listed at the last Publish that its client acknowledged
//     holding, and the cells its fog saw (Game.Validate with Knowledge): an
//     id it does not see is answered like an id no entity has, a Build
//     must be on a seen cell and checks the player's own state first;
//     unit lists lose the units it does not see before the game gets
//     them, so the game's own verdict (Game.Step) differs only through
//     what the player sees;
//   - entities are named on each client's wire by aliases (see aliases):
//     the smallest free one when the client first sees an entity, freed
//     when the client acknowledged its Leave, ties among entities it
//     cannot tell apart broken by a secret-keyed hash, so no id counts
//     hidden production or links a unit coming back out of the fog to
//     one that left; deltas go out in alias order;
//   - a field naming another entity (the target) carries it only while
//     the recipient sees it and holds its Enter, otherwise none;
//   - the simulation lets a unit keep or acquire a target only in a cell
//     its player sees (Game.SetTargetFilter), so its visible behaviour
//     never traces a hidden entity;
//   - the simulation's RNG seed is the room's secret (New), apart from the
//     public map seed of MatchStart;
//   - Rejections are grouped per client and tick, at most four; a
//     spectator's Orders are refused unread.
//
// TestNonInterference (and FuzzNonInterference) prove it on twin rooms
// that differ in hidden state; TestTargetsStayInVision proves the
// simulation's side. Not hidden: the tick timing (a tick that overran is
// late for everyone), and, inside the simulation, what the game rules
// make visible (a unit shot from the dark loses health; the RNG is one
// stream, so hidden draws shift visible rolls, unpredictable without the
// seed).
//
// The rules above are the mode's, whatever the game: a game plugs in
// through Game (its simulation, its entities in the wire's form, its
// sight, its order checks), and the reference RTS is one implementation
// of it (package fogauth/rtsgame), against which TestNonInterference runs.
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
//	Simulate: aliases → ids; Game.Validate each order against its player's knowledge
//	          Game.Step(valid): the hosted game (the reference RTS: package rtsgame)
//	          Rejections: per client, grouped by (reason, kind) with counts, ≤ 4, reliable
//	Publish:  Game.UpdateSight: each player's sight (the RTS skips a player
//	          whose sight sources hash as last tick: RadiusFogProvider)
//	          per client: visible set (spectators: union, or the full map)
//	            ─ diff against what the client ACKNOWLEDGED: Enter / Update / Leave
//	              (targets it does not see as none; new entities get aliases)
//	            ─ all fit the budget? send in alias order : priority accumulator
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
// Entity ids on the wire (entity id, target, an Ack's first entity, ids
// in Orders) are the recipient's aliases, never the simulation's ids.
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
// Control messages: Orders and Rejection reliable-ordered (Orders lane),
// Ack unreliable-sequenced (Control lane; each names a StateUpdate in
// several consecutive Acks), StateUpdates unreliable (State lane: lost,
// reordered or duplicated, the client drops one older than a tick it
// applied):
//
//	Orders                      Ack (3 + 12·n bytes)        Rejection (13 bytes)
//	0 1 type 0x21               0 1  type 0x22              0  1 type 0x23
//	1 . one packet of the       1 2  n u16                  1  8 tick u64
//	    native TLV order codec  3 12·n (tick u64,           9  1 reason u8
//	    (package protocol)             first entity u32)    10 1 order kind u8
//	                                                        11 2 count u16
//
// Any number of Orders packets may carry the same tick stamp (orders are
// for the next tick, whatever the stamp). Every order sent is applied or
// counted in a Rejection: a client's refusals of a tick are grouped by
// (reason, kind), the first three groups sent one by one and the rest
// counted in one RejectMany; a spectator's Orders packet counts once as
// RejectSpectator, an undecodable one once as RejectMalformed.
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
// rejection reason is the game's (below 0x80), or RejectRate, RejectSpectator,
// RejectFinished, RejectMalformed or RejectMany. MatchStart's map seed
// is public (the map is); the simulation's seed is never sent. A
// MatchEnd's two timing fields are zero for players (the room's timing
// depends on the whole map; fogserver fills them for spectators).
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
