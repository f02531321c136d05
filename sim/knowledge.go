package sim

import "github.com/tickwire/tickwire/protocol"

// Knowledge is what one player knows of the world: the entities it sees
// (its own among them) and the cells it sees. A fog-authoritative server
// validates a player's orders against it instead of the whole truth, so
// that a verdict never depends on anything the player cannot see.
type Knowledge interface {
	// Knows reports whether the player sees the entity.
	Knows(id protocol.EntityID) bool
	// SeesCell reports whether the player sees cell (x, y).
	SeesCell(x, y int) bool
}

// ValidateKnown is ValidateOrder against what player knows:
//   - an entity k does not know is treated as one that does not exist
//     (an unknown unit of a Move or Attack is skipped, an unknown target
//     or building is an invalid target, exactly like an unused id);
//   - a Build must be on a cell the player sees (RejectNotVisible), and the
//     checks that need only the player's own state (credits, structure
//     limit, build radius) come before the cell's occupancy, which only
//     counts structures the player sees.
//
// An order ValidateKnown accepts, with its unknown units removed (see
// KnownUnits), is one ValidateOrder accepts on the same state: every
// entity it names is known, so it exists, and a Build's cell is seen, so
// a structure on it would be known. It is pure, like ValidateOrder.
func (s *Sim) ValidateKnown(player protocol.PlayerID, order protocol.PlayerOrder, k Knowledge) OrderValidity {
	return s.validate(player, order, k)
}

// KnownUnits returns ids without those k does not know, reusing ids'
// storage (the order of the others is kept).
func KnownUnits(ids []protocol.EntityID, k Knowledge) []protocol.EntityID {
	kept := ids[:0]
	for _, id := range ids {
		if k.Knows(id) {
			kept = append(kept, id)
		}
	}
	return kept
}

// knownSlot is aliveSlot for an entity k knows (any, when k is nil).
func (s *Sim) knownSlot(id protocol.EntityID, k Knowledge) (int, bool) {
	if k != nil && !k.Knows(id) {
		return 0, false
	}
	return s.aliveSlot(id)
}

// validateBuildKnown is validateBuild, after buildBasics, against what
// player knows: the player's own state first, then whether it sees the
// cell, then the structures it sees on it.
func (s *Sim) validateBuildKnown(player protocol.PlayerID, o protocol.Build, k Knowledge) OrderValidity {
	cx, cy := CellOf(o.Pos)
	structures, near, blocked := 0, false, false
	for i := range s.states {
		e := &s.states[i]
		cat := rulesOf(e.Type).Category
		if cat != CategoryStructure && cat != CategoryNeutralStructure {
			continue
		}
		if e.Owner == player {
			structures++
			if e.Flags&FlagUnderConstruction == 0 && dist2(e.Pos, o.Pos) <= int64(buildRadius)*int64(buildRadius) {
				near = true
			}
		}
		if x, y := CellOf(e.Pos); x == cx && y == cy && k.Knows(e.ID) {
			blocked = true
		}
	}
	switch {
	case structures >= s.cfg.MaxStructuresPerPlayer:
		return RejectLimit
	case !near:
		return RejectTooFar
	case !k.SeesCell(cx, cy):
		return RejectNotVisible
	case blocked:
		return RejectBlocked
	}
	return Valid
}
