package fogauth

import "github.com/tickwire/tickwire/protocol"

// MaxPlayers bounds the players of one fog-authoritative room.
const MaxPlayers = 64

// Game is the authoritative game a fog-authoritative Room hosts: the
// developer's simulation, its entities in the seed's wire form, and its
// sight. The rules that keep what a client receives independent of what
// its player cannot see belong to the Room, not to the game: the Room
// validates every order against what the player knows (Knowledge) before
// the game sees it, names entities by per-client aliases, drops from an
// order the units the player does not see, filters targets through
// SetTargetFilter, limits rejections, and keeps the simulation's seed
// secret. A Game only has to answer truthfully.
//
// The types of its methods are protocol's and the language's, so a game
// package implements Game without importing fogauth. The reference RTS's
// implementation is package fogauth/rtsgame.
type Game interface {
	// Players is the number of player seats, 1..MaxPlayers; players are
	// numbered from 1, and owner 0 is neutral.
	Players() int
	// Tick is the number of ticks stepped.
	Tick() uint64
	// Step applies one tick's orders, in order, and advances one tick.
	// The orders passed the Room's validation; refused is told of each one
	// the game still refuses when it applies it (an earlier order of the
	// tick spent the credits), with the game's reason (not 0). Those
	// reasons may depend only on the player's own state and on what it
	// sees.
	Step(orders []protocol.TimestampedOrder, refused func(o *protocol.TimestampedOrder, reason uint8)) error
	// Entities lists every entity in ascending ID order; the slice is
	// valid until the next Step.
	Entities() []protocol.EntityState
	// Size is the map's size in cells of protocol.CellSize.
	Size() (width, height int)
	// UpdateSight recomputes every player's sight from the current state
	// (always: even where the game can tell nothing changed), and reports
	// for how many players it recomputed and skipped the work.
	UpdateSight(always bool) (recomputed, skipped int)
	// Visible lists, in ascending ID order, the entities player saw at
	// the last UpdateSight, its own among them. The slice is valid until
	// the next UpdateSight and must not be modified.
	Visible(player protocol.PlayerID) []protocol.EntityID
	// CellVisible reports whether player saw cell (x, y) at the last
	// UpdateSight.
	CellVisible(player protocol.PlayerID, x, y int) bool
	// Validate checks an order of player against what the player knows:
	// 0 if valid, otherwise the game's reason, sent to the client in a
	// Rejection. It must decide from k and the player's own state only:
	// an entity k does not know is answered as an id no entity has, a
	// cell k does not see as a cell the game knows nothing of.
	Validate(player protocol.PlayerID, o protocol.PlayerOrder, k Knowledge) uint8
	// SetTargetFilter makes the game consult f before a unit keeps or
	// acquires a target: a target f refuses is one the unit's player does
	// not see, and the unit behaves as if it did not exist.
	SetTargetFilter(f func(owner protocol.PlayerID, target *protocol.EntityState) bool)
	// IsUnit reports whether e is a unit: a player's units make what is
	// near them urgent in the Room's priority tiers. IsDecoration reports
	// neutral scenery, sent last.
	IsUnit(e *protocol.EntityState) bool
	IsDecoration(e *protocol.EntityState) bool
}

// Knowledge is what a player knows when its orders are validated: the
// entities it holds that its fog lists, and the cells it sees.
type Knowledge = interface {
	Knows(id protocol.EntityID) bool
	SeesCell(x, y int) bool
}

// cellOf is the cell holding p.
func cellOf(p protocol.WorldPos) (x, y int) {
	return int(p.X / protocol.CellSize), int(p.Y / protocol.CellSize)
}

// knownUnits returns ids without those k does not know, in place.
func knownUnits(ids []protocol.EntityID, k Knowledge) []protocol.EntityID {
	kept := ids[:0]
	for _, id := range ids {
		if k.Knows(id) {
			kept = append(kept, id)
		}
	}
	return kept
}
