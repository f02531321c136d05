package sim

import "github.com/tickwire/tickwire/protocol"

// TargetFilter reports whether owner's entities may see target: keep it
// as their target, or acquire it. A fog-authoritative server sets one so
// that a unit never locks onto, or keeps chasing, an entity its player
// cannot see (whose visible movement would otherwise trace the hidden
// one).
type TargetFilter func(owner protocol.PlayerID, target *EntityState) bool

// SetTargetFilter makes target upkeep and acquisition consult f; nil (the
// default, and every lockstep game's rule) lets a unit target any enemy
// within reach. The filter is a rule of the match: every peer must use
// the same one, and it is not part of snapshots or StateHash.
func (s *Sim) SetTargetFilter(f TargetFilter) { s.filter = f }

// sees reports whether the filter lets owner's entities target the entity
// in slot k.
func (s *Sim) sees(owner protocol.PlayerID, k int) bool {
	return s.filter == nil || s.filter(owner, &s.states[k])
}

// OrderRefused is told of each order ApplyTickReport refused: the order
// and the verdict that refused it.
type OrderRefused func(o *protocol.TimestampedOrder, v OrderValidity)

// ApplyTickReport is ApplyTick, telling refused of every order it
// ignores as invalid (at its turn in chronological order, so after the
// orders applied before it in the tick).
func (s *Sim) ApplyTickReport(t protocol.TickOrders, refused OrderRefused) error {
	return s.applyTick(t, refused)
}
