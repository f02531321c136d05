// Package action is tickwire's reference action game: the deterministic
// simulation that the prediction netcode (package predict), its tests, bots
// and demo play. It imports no network code; a netcode drives it through
// Step, Snapshot, Restore and StateHash.
//
// # The game
//
// Players move continuously in a square arena (48 units by default) with
// pillars and walls as axis-aligned colliders: a movement intent (MoveX,
// MoveY in -127..127, clamped to the unit circle, in world axes), sprint,
// jump (gravity brings them down) and a view yaw and pitch. A cast fires a
// projectile along the yaw (with a small spread drawn from the RNG) if the
// caster's cooldown has run out and it has the mana; otherwise the cast is
// rejected with a reason. Projectiles fly straight, vanish at colliders or
// when their life ends, and damage the first opposing player they touch
// (base damage plus 0..5 from the RNG). A player at zero health dies and
// respawns two seconds later at a random free point.
//
// All state is 16.16 fixed point (Fixed) and integers; the RNG (SplitMix64,
// one uint64) is part of the state. There are no floats, no map iteration
// and no clock in any computation whose result is state.
//
// # One tick
//
//	Step(inputs, events)
//	  respawn      dead players count down, respawn at an RNG point
//	  movement     players in id order: input (or held intent), accelerate, X then Y against colliders, jump/gravity
//	  projectiles  in cast order (owner, action sequence): fly, expire or strike a collider,
//	               first hit damages (RNG), deaths; ended projectiles removed after all flew
//	  actions      casts in player id order: dead / cooldown / mana checks, spawn
//	  regeneration cooldowns count down, mana refills
//
// A player without an input in a tick keeps its held movement intent, view
// and sprint; it neither jumps nor casts. That rule is what a server applies
// when an input is missing and what a predicting client assumes for the
// other players, so both step the same.
//
// # Provisional spawns
//
// SetProvisionalSpawns(true) makes casts spawn projectiles with the id
// -CastSeq instead of the next authoritative id. A predicting client steps
// its own unacknowledged inputs that way, so a predicted projectile never
// takes an id the server hands out and a replayed cast recreates the same
// provisional entity; the server's EventSpawn (carrying CastSeq and the
// real id) maps one to the other.
//
// # Snapshot layout (all integers little endian)
//
//	offset  size  field
//	0       4     magic "TWA1"
//	4       1     version (1)
//	5       8     rules hash (xxHash64 of the Config with defaults)
//	13      8     seed
//	21      8     tick
//	29      8     RNG state
//	37      4     next entity id
//	41      4     entity count E
//	45      49·E  entity records, ascending id (provisional ids first):
//
//	 0 id i32      4 kind u8     5 owner u8    6 pos x,y,z 3·i32   18 vel x,y,z 3·i32
//	30 yaw u16    32 pitch i16  34 health i16 36 mana i16  38 timer u16  40 respawn u16
//	42 intent x i8  43 intent y i8  44 flags u8  45 action seq u32
//
// AppendEntity and ParseEntity encode one record, so a netcode can diff
// snapshots entity by entity. Restore validates every record before
// replacing anything and never panics. StateHash is the xxHash64 of the
// snapshot bytes.
package action
