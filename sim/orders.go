package sim

import (
	"strconv"

	"github.com/tickwire/tickwire/protocol"
)

// OrderValidity is the verdict of ValidateOrder: Valid or a rejection reason.
type OrderValidity uint8

// Verdicts.
const (
	Valid OrderValidity = iota
	RejectUnknownPlayer
	RejectNoUnits          // no listed unit exists any more, or the list is empty
	RejectTooManyUnits     // more unit ids than the protocol limit
	RejectNotOwner         // an entity named belongs to someone else
	RejectNotCapable       // the entity cannot do this (e.g. move a structure)
	RejectInvalidTarget    // the target does not exist or may not be attacked
	RejectOutOfBounds      // a position is off the map
	RejectBlocked          // a position is on a blocking cell or occupied
	RejectTooFar           // a Build position is outside the build radius
	RejectInsufficientFund // not enough credits
	RejectLimit            // the player's structure limit is reached
	RejectUnsupported      // Custom orders mean nothing to the reference game
	RejectNotVisible       // a Build position its player cannot see (ValidateKnown only)
	numValidities
)

var validityNames = [numValidities]string{
	"valid", "unknown player", "no units", "too many units", "not owner",
	"not capable", "invalid target", "out of bounds", "blocked", "too far",
	"insufficient funds", "limit reached", "unsupported", "not visible",
}

// String describes the verdict.
func (v OrderValidity) String() string {
	if v < numValidities {
		return validityNames[v]
	}
	return "OrderValidity(" + strconv.Itoa(int(v)) + ")"
}

// ValidateOrder reports whether player may give order now. It is pure: it
// never changes the simulation. Builds with the tickwire_debug tag check
// that by hashing the whole state before and after, as the validation-purity
// design asks.
func (s *Sim) ValidateOrder(player protocol.PlayerID, order protocol.PlayerOrder) OrderValidity {
	if !debugChecks {
		return s.validate(player, order, nil)
	}
	before := s.StateHash()
	v := s.validate(player, order, nil)
	if after := s.StateHash(); after != before {
		panic("sim: ValidateOrder modified the simulation state (order " + order.OrderKind().String() + ")")
	}
	return v
}

// validate is ValidateOrder, or ValidateKnown when k is not nil.
func (s *Sim) validate(player protocol.PlayerID, order protocol.PlayerOrder, k Knowledge) OrderValidity {
	if player < 1 || int(player) > s.players {
		return RejectUnknownPlayer
	}
	switch o := order.(type) {
	case protocol.Idle:
		return Valid
	case protocol.Move:
		if !s.terrain.Contains(o.Target) {
			return RejectOutOfBounds
		}
		if !s.terrain.passableAt(o.Target) {
			return RejectBlocked
		}
		return s.validateUnits(player, o.Units, false, k)
	case protocol.Attack:
		switch o.Target.Kind {
		case protocol.TargetEntity:
			i, ok := s.knownSlot(o.Target.Entity, k)
			if !ok {
				return RejectInvalidTarget
			}
			if e := &s.states[i]; e.Owner == Neutral || e.Owner == player {
				return RejectInvalidTarget
			}
		case protocol.TargetGround:
			if !s.terrain.Contains(o.Target.Pos) {
				return RejectOutOfBounds
			}
			if !s.terrain.passableAt(o.Target.Pos) {
				return RejectBlocked
			}
		default:
			return RejectInvalidTarget
		}
		return s.validateUnits(player, o.Units, true, k)
	case protocol.Build:
		return s.validateBuild(player, o, k)
	case protocol.SetRallyPoint:
		i, ok := s.knownSlot(o.Building, k)
		if !ok {
			return RejectInvalidTarget
		}
		if s.states[i].Owner != player {
			return RejectNotOwner
		}
		if rulesOf(s.states[i].Type).Produces == TypeNone {
			return RejectNotCapable
		}
		if !s.terrain.Contains(o.Pos) {
			return RejectOutOfBounds
		}
		if !s.terrain.passableAt(o.Pos) {
			return RejectBlocked
		}
		return Valid
	case protocol.Sell:
		i, ok := s.knownSlot(o.Building, k)
		if !ok {
			return RejectInvalidTarget
		}
		if s.states[i].Owner != player {
			return RejectNotOwner
		}
		if rulesOf(s.states[i].Type).Category != CategoryStructure {
			return RejectNotCapable
		}
		return Valid
	default:
		return RejectUnsupported
	}
}

// validateUnits checks the unit list of a Move or Attack. Ids of entities
// that no longer exist are skipped (they may have died while the order was
// in flight); an id of someone else's entity rejects the whole order.
func (s *Sim) validateUnits(player protocol.PlayerID, ids []protocol.EntityID, armed bool, k Knowledge) OrderValidity {
	if len(ids) > s.cfg.Limits.MaxUnitsPerOrder {
		return RejectTooManyUnits
	}
	alive := 0
	for _, id := range ids {
		i, ok := s.knownSlot(id, k)
		if !ok {
			continue
		}
		e := &s.states[i]
		if e.Owner != player {
			return RejectNotOwner
		}
		r := rulesOf(e.Type)
		if r.Category != CategoryUnit || (armed && r.Range == 0) {
			return RejectNotCapable
		}
		alive++
	}
	if alive == 0 {
		return RejectNoUnits
	}
	return Valid
}

func (s *Sim) validateBuild(player protocol.PlayerID, o protocol.Build, k Knowledge) OrderValidity {
	if v := s.buildBasics(player, o); v != Valid {
		return v
	}
	if k != nil {
		return s.validateBuildKnown(player, o, k)
	}
	cx, cy := CellOf(o.Pos)
	structures, near := 0, false
	for i := range s.states {
		e := &s.states[i]
		cat := rulesOf(e.Type).Category
		if cat != CategoryStructure && cat != CategoryNeutralStructure {
			continue
		}
		if x, y := CellOf(e.Pos); x == cx && y == cy {
			return RejectBlocked
		}
		if e.Owner == player {
			structures++
			if e.Flags&FlagUnderConstruction == 0 && dist2(e.Pos, o.Pos) <= int64(buildRadius)*int64(buildRadius) {
				near = true
			}
		}
	}
	if structures >= s.cfg.MaxStructuresPerPlayer {
		return RejectLimit
	}
	if !near {
		return RejectTooFar
	}
	return Valid
}

// buildBasics checks what a Build needs of the player's own state and
// the public map: a buildable type, a passable cell on the map, credits.
func (s *Sim) buildBasics(player protocol.PlayerID, o protocol.Build) OrderValidity {
	t := EntityType(o.Structure)
	switch {
	case !validType(t) || !rulesOf(t).Buildable:
		return RejectNotCapable
	case !s.terrain.Contains(o.Pos):
		return RejectOutOfBounds
	case !s.terrain.passableAt(o.Pos):
		return RejectBlocked
	case s.credits[player-1] < rulesOf(t).Cost:
		return RejectInsufficientFund
	}
	return Valid
}

// apply carries out an order ValidateOrder accepted.
func (s *Sim) apply(player protocol.PlayerID, order protocol.PlayerOrder) {
	switch o := order.(type) {
	case protocol.Move:
		s.orderUnits(o.Units, modeMove, o.Target, 0)
	case protocol.Attack:
		if o.Target.Kind == protocol.TargetEntity {
			s.orderUnits(o.Units, modeAttack, protocol.WorldPos{}, o.Target.Entity)
		} else {
			s.orderUnits(o.Units, modeAttackMove, o.Target.Pos, 0)
		}
	case protocol.Build:
		t := EntityType(o.Structure)
		s.credits[player-1] -= rulesOf(t).Cost
		x, y := CellOf(o.Pos)
		i := s.spawn(t, player, CellCenter(x, y))
		s.states[i].Health = 1
		s.states[i].Flags = FlagUnderConstruction
		s.states[i].Anim = AnimConstructing
	case protocol.SetRallyPoint:
		i, _ := s.aliveSlot(o.Building)
		s.behav[i].goal = protocol.WorldPos{X: o.Pos.X, Y: o.Pos.Y}
		s.behav[i].flags |= bRally
	case protocol.Sell:
		i, _ := s.aliveSlot(o.Building)
		e := &s.states[i]
		refund := int64(rulesOf(e.Type).Cost) / 2 * int64(e.Health) / int64(e.HealthMax)
		s.credits[player-1] = min(s.credits[player-1]+int32(refund), maxCredits)
		e.Health = 0 // removed at the end of the tick
	}
}

// orderUnits gives each listed unit that still exists a new mode. Units of
// a group spread around the goal in a small formation.
func (s *Sim) orderUnits(ids []protocol.EntityID, m mode, goal protocol.WorldPos, target protocol.EntityID) {
	n := 0
	for _, id := range ids {
		i, ok := s.aliveSlot(id)
		if !ok {
			continue
		}
		b := &s.behav[i]
		b.mode = m
		b.flags &^= bDetour
		s.states[i].Target = target
		if m != modeAttack {
			b.goal = s.formationSlot(goal, n)
		}
		n++
	}
}

// formation offsets in half cells, filled in order around the goal.
var formation = [9][2]protocol.SimCoord{{0, 0}, {1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {-1, -1}, {1, -1}}

func (s *Sim) formationSlot(goal protocol.WorldPos, n int) protocol.WorldPos {
	off := formation[n%len(formation)]
	p := protocol.WorldPos{X: goal.X + off[0]*protocol.CellSize/2, Y: goal.Y + off[1]*protocol.CellSize/2}
	if !s.terrain.passableAt(p) {
		return protocol.WorldPos{X: goal.X, Y: goal.Y}
	}
	return p
}
