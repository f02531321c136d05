package sim

import "github.com/tickwire/tickwire/protocol"

// Entity types of the reference rules.
const (
	TypeNone EntityType = iota
	TypeInfantry
	TypeTank
	TypeScout
	TypeHQ
	TypeBarracks
	TypeFactory
	TypeTurret
	TypeOilDerrick
	TypeTree
	TypeRock
	TypeHusk
	numTypes
)

// Rules describe one entity type. Distances are SimCoord, times are ticks.
type Rules struct {
	Name      string
	Category  Category
	HealthMax uint16
	Speed     protocol.SimCoord // per tick; 0 = cannot move
	Sight     protocol.SimCoord // 0 = no sight source
	Range     protocol.SimCoord // weapon range; 0 = unarmed
	Damage    uint16            // base damage per shot
	Spread    uint16            // extra damage rolled in [0, Spread]
	Cooldown  uint8             // ticks between shots
	Cost      int32             // credits
	BuildTime uint16            // ticks to produce or construct
	Buildable bool              // may be placed by a Build order
	Produces  EntityType        // unit a production structure makes
}

const cell = protocol.CellSize

// rulesTable is the immutable table of entity types, indexed by EntityType.
var rulesTable = [numTypes]Rules{
	TypeNone:       {Name: "none"},
	TypeInfantry:   {Name: "infantry", Category: CategoryUnit, HealthMax: 100, Speed: 48, Sight: 5 * cell, Range: 4 * cell, Damage: 8, Spread: 6, Cooldown: 10, Cost: 100, BuildTime: 60},
	TypeTank:       {Name: "tank", Category: CategoryUnit, HealthMax: 300, Speed: 64, Sight: 6 * cell, Range: 5 * cell, Damage: 28, Spread: 12, Cooldown: 25, Cost: 400, BuildTime: 120},
	TypeScout:      {Name: "scout", Category: CategoryUnit, HealthMax: 60, Speed: 112, Sight: 9 * cell, Range: 3 * cell, Damage: 4, Spread: 4, Cooldown: 8, Cost: 150, BuildTime: 60},
	TypeHQ:         {Name: "hq", Category: CategoryStructure, HealthMax: 1500, Sight: 8 * cell, Cost: 2000, BuildTime: 600},
	TypeBarracks:   {Name: "barracks", Category: CategoryStructure, HealthMax: 800, Sight: 5 * cell, Cost: 500, BuildTime: 200, Buildable: true, Produces: TypeInfantry},
	TypeFactory:    {Name: "factory", Category: CategoryStructure, HealthMax: 1000, Sight: 5 * cell, Cost: 800, BuildTime: 300, Buildable: true, Produces: TypeTank},
	TypeTurret:     {Name: "turret", Category: CategoryStructure, HealthMax: 600, Sight: 7 * cell, Range: 6 * cell, Damage: 24, Spread: 8, Cooldown: 20, Cost: 300, BuildTime: 150, Buildable: true},
	TypeOilDerrick: {Name: "oil-derrick", Category: CategoryNeutralStructure, HealthMax: 500},
	TypeTree:       {Name: "tree", Category: CategoryDecoration, HealthMax: 50},
	TypeRock:       {Name: "rock", Category: CategoryDecoration, HealthMax: 1},
	TypeHusk:       {Name: "husk", Category: CategoryDecoration, HealthMax: huskLifetime},
}

// Rule constants of the reference game.
const (
	huskLifetime      = 240 // ticks a burning wreck lasts
	huskChancePercent = 50  // chance a destroyed tank leaves a husk
	missChancePercent = 10  // chance a shot misses
	scoutEvery        = 3   // every third barracks unit is a scout
	buildRadius       = 10 * cell
	acquireEvery      = 4 // idle units look for targets every 4th tick
)

// veterancyKills is the kill count that reaches each rank.
var veterancyKills = [MaxVeterancy + 1]uint16{0, 3, 7, 12}

// RulesOf returns the rules of t, or the rules of TypeNone for an unknown type.
func RulesOf(t EntityType) Rules { return *rulesOf(t) }

func rulesOf(t EntityType) *Rules {
	if t >= numTypes {
		return &rulesTable[TypeNone]
	}
	return &rulesTable[t]
}

func validType(t EntityType) bool { return t > TypeNone && t < numTypes }

// ownerFits reports whether owner may own an entity of type t in a match of
// the given number of players: player categories need a player, neutral
// ones the neutral owner.
func ownerFits(t EntityType, owner protocol.PlayerID, players int) bool {
	switch rulesOf(t).Category {
	case CategoryUnit, CategoryStructure:
		return owner >= 1 && int(owner) <= players
	default:
		return owner == Neutral
	}
}
