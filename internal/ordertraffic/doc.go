// Package ordertraffic generates the seeded RTS order traffic the order
// codec is measured on, and sizes the naive fixed-width baseline it is
// compared with.
//
// # Traffic model
//
// Players play at TicksPerSecond for Ticks ticks. On each tick each player
// independently orders with probability OrderTickRate (so about 80% of a
// player's ticks are empty); an ordering tick carries one order, or two with
// probability SecondOrderRate. Orders are 70% Move, 15% Attack, 8% Build,
// 4% SetRallyPoint and 3% Sell. Each player owns the unit ids
// [1000p+1, 1000p+300] and keeps four control groups of 1–12 of them;
// a Move or Attack commands the player's current selection, which is
// switched to a random control group with probability 35% per order (players
// re-issue orders to the same selection most of the time). An Attack targets
// another player's unit 60% of the time and the ground otherwise (always the
// ground when the model has one player). Move and ground
// targets land within ±8 cells of the player's previous target 75% of the
// time and anywhere on a 128×128-cell map otherwise, at cell centres. Sub-tick
// times are uniform over the tick window; a tick's orders are sorted
// chronologically, as the relay emits them.
//
// # Naive baseline
//
// The baseline is what serialising every TimestampedOrder with a generic
// fixed-width serialiser gives (the layout of serde with bincode's legacy
// configuration, which the design document's Rust types would get): integers
// at their declared width, little-endian; an enum as a u32 variant index and
// that variant's fields; a sequence as a u64 length and its elements. Every
// player has one record per tick: an explicit Idle record when it has no
// orders, otherwise one record per order:
//
//	tick u64 | player u16 | sub_tick u32 | variant u32 | variant fields
//
//	Idle (empty)   nothing                              18 bytes in all
//	Move           len u64, len × id u32, x,y,z i32
//	Attack         len u64, len × id u32, target variant u32,
//	               then entity u32 or x,y,z i32
//	Build          structure u16, x,y,z i32
//	SetRallyPoint  building u32, x,y,z i32
//	Sell           building u32
//	Custom         kind u16, len u64, payload
package ordertraffic
