package sim

import "github.com/tickwire/tickwire/protocol"

// Neutral is the owner of neutral structures and decoration. Players are
// numbered 1..Players, as in the owner byte of the fog-authoritative wire
// format, where 0 means neutral.
const Neutral protocol.PlayerID = 0

// MaxPlayers bounds the players of one match.
const MaxPlayers = 64

// WAngle is a facing: 1024 units are one full turn, 0 points along +X and
// angles grow toward +Y.
type WAngle = protocol.WAngle

// FullTurn is the WAngle of one whole revolution.
const FullTurn WAngle = 1024

// EntityType indexes the rules table (see rules.go).
type EntityType = protocol.EntityType

// Category is the kind of an entity. A player owns units and structures;
// the neutral owner has neutral structures and decoration.
type Category uint8

// The four entity categories.
const (
	CategoryUnit Category = iota
	CategoryStructure
	CategoryNeutralStructure
	CategoryDecoration
	numCategories
)

var categoryNames = [numCategories]string{"units", "structures", "neutral-structures", "decoration"}

// String names the category.
func (c Category) String() string {
	if c < numCategories {
		return categoryNames[c]
	}
	return "category?"
}

// StateFlags are the entity state bits of the fog-authoritative wire format.
type StateFlags = protocol.StateFlags

// State flag bits.
const (
	FlagCloaked StateFlags = 1 << iota
	FlagBurrowed
	FlagDeployed
	FlagInTransport
	FlagUnderConstruction
	knownFlags = FlagCloaked | FlagBurrowed | FlagDeployed | FlagInTransport | FlagUnderConstruction
)

// AnimState is the animation an entity shows.
type AnimState = protocol.AnimState

// Animation states. The first four numbers follow the fog-authoritative
// wire format (idle=0, moving=1, attacking=2, harvesting=3).
const (
	AnimIdle AnimState = iota
	AnimMoving
	AnimAttacking
	AnimHarvesting
	AnimProducing
	AnimConstructing
	numAnims
)

// EntityState is what the outside world may read of an entity: exactly the
// fields a fog-authoritative server tracks per entity and sends in
// EntityEnter and EntityUpdate deltas (protocol.EntityState).
type EntityState = protocol.EntityState

// CategoryOf reports the entity's category, which follows from its type.
func CategoryOf(e *EntityState) Category { return rulesOf(e.Type).Category }

// MaxVeterancy is the highest veterancy rank.
const MaxVeterancy = 3

// SightSource is one point a player sees from: every entity the player owns
// with a sight range. Range is in SimCoord; visibility is computed on whole
// cells (see RadiusFogProvider).
type SightSource struct {
	Pos   protocol.WorldPos
	Range protocol.SimCoord
}
