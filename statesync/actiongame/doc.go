// Package actiongame plays the reference action game (package sim/action)
// in a state-sync room: Engine implements statesync.Engine over an
// action.World, and the input codec below carries a player's joins and
// inputs through the room's Ticks. The state-sync packages never import
// the game; this package is the only place the two meet.
//
// # Entities
//
// Entity 0 is the world record (the snapshot header: rules hash, seed,
// tick, random generator, next id, entity count); every other entity is
// the game's 49-byte record under its own id (game ids start at 1).
//
// # Inputs
//
// A client's input for a frame, as statesync carries it (opaque bytes):
//
//	join:   0x01                                    (1 byte: spawn my player)
//	input:  0x02 moveX i8 moveY i8 flags u8 yaw u16 pitch i16 castSeq u32   (12 bytes, little-endian)
//	        flags: bit 0 jump, bit 1 sprint, bit 2 cast
//	leave:  no bytes (the server's notice that the client left)
//
// A client id is the player id, so a room holds at most 255 players of
// the game (action.Config.MaxPlayers).
package actiongame
