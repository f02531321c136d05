package protocol

// EntityState is one entity as a fog-authoritative server tracks it and
// sends it in EntityEnter and EntityUpdate deltas: the seed's wire fields.
// A game hosted in that mode lists its entities in this form; what the
// numbers of Type, Flags and Anim mean is the game's.
type EntityState struct {
	ID        EntityID
	Type      EntityType
	Owner     PlayerID // 0: neutral
	Pos       WorldPos
	Health    uint16
	HealthMax uint16
	Facing    WAngle
	Target    EntityID // 0 = none
	Flags     StateFlags
	Cargo     uint8
	Anim      AnimState
	Veterancy uint8
}

// EntityType is the game's number for an entity's type.
type EntityType uint16

// WAngle is a facing: 1024 units are one full turn, 0 points along +X and
// angles grow toward +Y.
type WAngle int32

// StateFlags are an entity's state bits.
type StateFlags uint16

// AnimState is the animation an entity shows.
type AnimState uint8
