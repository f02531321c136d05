package protocol

// PlayerID identifies a player within one match. It is 16 bits wide on the
// wire of every mode (the fog-authoritative format carries it as a u16), which
// leaves room for the 100+ player games of the state-sync mode.
type PlayerID uint16

// EntityID identifies a unit, structure or other entity of the simulation.
// Zero means "no entity".
type EntityID uint32

// SimCoord is a fixed-point world coordinate: 1024 units are one map cell.
type SimCoord int32

// CellSize is the number of SimCoord units in one map cell.
const CellSize SimCoord = 1024

// WorldPos is a position in the simulation world. Z is height.
type WorldPos struct {
	X, Y, Z SimCoord
}

// StructureType names a kind of building the Build order places. Its meaning
// belongs to the game's rules; the protocol only carries it.
type StructureType uint16

// TargetKind tells what a Target points at.
type TargetKind uint8

// Target kinds.
const (
	// TargetEntity aims at another entity (Target.Entity).
	TargetEntity TargetKind = iota
	// TargetGround aims at a point on the map (Target.Pos), e.g. attack-move.
	TargetGround
)

// Target is what an Attack order aims at: an entity or a ground position.
// Only the field selected by Kind is meaningful; the other is zero.
type Target struct {
	Kind   TargetKind
	Entity EntityID
	Pos    WorldPos
}
