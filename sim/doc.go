// Package sim is tickwire's reference deterministic simulation: a small
// real-time strategy game that every network mode runs, and a worked
// example of what a game's simulation must provide to lockstep,
// fog-authoritative, prediction and state-sync netcode.
//
// # The game
//
// A grid map of passable and blocking cells with heights; SimCoord fixed
// point (1024 per cell), facings in WAngle (1024 per turn). Players
// (numbered 1..N; 0 is the neutral owner) have units (infantry, tanks,
// scouts) and structures (HQ, barracks, factory, turret); the map adds
// neutral structures (oil derricks) and decoration (trees, rocks, the husks
// destroyed tanks leave). Orders come from package protocol: Move (a
// straight line, or a breadth-first flow field around rocks), Attack (an
// entity, or attack-move to ground), Build, SetRallyPoint, Sell and Idle.
// Combat rolls, spawn scatter and husks use the simulation's own RNG,
// seeded from the game seed. There are no floats, no math/rand and no map
// iteration in any computation whose result is state.
//
// # One tick
//
//	ApplyTick(TickOrders)
//	  ├─ orders sorted by (sub-tick time, player) into a reused scratch slice
//	  ├─ each order: ValidateOrder (pure) ─ Valid? ─ apply
//	  └─ step: census ─ spatial index ─ entities in ID order ─ remove dead ─ income
//	StateHash()  ──  Merkle root over entity groups (below)
//
// Invalid orders (another player's units, unknown player, bad positions,
// Custom) are ignored identically on every peer. Builds with the
// tickwire_debug tag assert that ValidateOrder leaves the state hash
// unchanged.
//
// # State hash and Merkle tree
//
// Leaves are entity groups: the world record, neutral structures,
// decoration, then units and structures of each player. A leaf hashes the
// canonical records of its entities (in ID order) with xxHash64; interior
// nodes hash their two children's hashes (16 bytes, little endian); leaves
// are padded with zero hashes to a power of two. The root is StateHash().
//
//	                    root = StateHash()
//	                /                        \
//	          h(0..3)                        h(4..7)
//	         /       \                      /       \
//	    h(0,1)       h(2,3)            h(4,5)        h(6,7)
//	    /   \        /    \            /   \         /    \
//	world neutral  decor  p1 units  p1 structs p2 units p2 structs  0
//
// DiffTrees descends only into differing subtrees to name the leaves where
// two simulations disagree; Diff then lists field-by-field differences of
// two snapshots.
//
// # Snapshot layout (all integers little endian)
//
//	offset  size  field
//	0       4     magic "TWS1"
//	4       1     version (1)
//	5       2     map width (cells)
//	7       2     map height (cells)
//	9       2     players N
//	11      8     map hash (xxHash64 of size, players and cells)
//	19      8     rules hash (Config with defaults, rules version)
//	27      8     game seed
//	35      8     tick                         ┐
//	43      8     RNG state                    │ world record
//	51      4     next entity id               │ (Merkle leaf 0)
//	55      4·N   credits of players 1..N      ┘
//	55+4N   4     entity count E
//	59+4N   53·E  entity records, ascending id:
//
//	  0 id u32      4 type u16     6 owner u16    8 x i32     12 y i32
//	 16 z i32      20 health u16  22 health max  24 facing i32 28 target u32
//	 32 flags u16  34 cargo u8    35 anim u8     36 veterancy u8
//	 37 order mode u8  38 order flags u8  39 cooldown u8  40 produced u8
//	 41 kills u16  43 progress u16  45 goal x i32  49 goal y i32
//
// Restore validates every field before replacing anything, so it never
// panics and leaves the simulation untouched on error.
//
// # Fog of war
//
// FogProvider is the interface a fog-authoritative server uses;
// RadiusFogProvider implements circle visibility on the cell grid from
// SightSources. SpatialIndex is the uniform grid behind target acquisition,
// public for range queries.
//
// A fog-authoritative server adds two rules of its own, off by default
// (the lockstep rules and golden hashes do not change): ValidateKnown
// validates an order against what its player knows (a Knowledge: the
// entities and cells it sees) instead of the whole truth, and
// SetTargetFilter lets units keep or acquire only targets their player
// sees. ApplyTickReport is ApplyTick telling which orders it refused.
//
// # Determinism tooling
//
// DualSimVerifier runs two simulations on the same orders and compares
// their hashes every tick (and can round-trip one through Snapshot and
// Restore). The packages scenario and bot generate matches and play them.
package sim
