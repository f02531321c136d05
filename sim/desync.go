package sim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/tickwire/tickwire/protocol"
)

// ErrCacheMismatch: a derived cache disagrees with the state it is derived
// from (CheckCaches, desync debug level 2).
var ErrCacheMismatch = errors.New("sim: derived cache does not match the state")

// Nodes returns the tree level by level, padded leaves first and the root
// last (package merkle's layout). The slice is the tree's own.
func (t *MerkleTree) Nodes() []uint64 { return t.nodes }

// EntityFields is one entity of a Merkle leaf as named values (the world
// leaf has one pseudo-entity, id 0).
type EntityFields struct {
	ID     protocol.EntityID
	Values []int64
}

// EntityFieldNames are the fields of an entity in a desync report, in
// the order of EntityFields.Values (the names Diff uses).
func EntityFieldNames() []string { return slices.Clone(entityFieldNames[:]) }

// SnapshotLeaf returns what Merkle leaf i of a Snapshot's state hashes:
// its label, its field names and its entities in id order. Leaf 0, the
// world record, is one entity with id 0 and fields tick, rng, next_id and
// credits[p].
func SnapshotLeaf(snapshot []byte, i int) (LeafLabel, []string, []EntityFields, error) {
	d, err := decodeSnapshot(snapshot)
	if err != nil {
		return LeafLabel{}, nil, nil, err
	}
	if i < 0 || i >= leafCount(d.players) {
		return LeafLabel{}, nil, nil, fmt.Errorf("sim: leaf %d of %d", i, leafCount(d.players))
	}
	if i == 0 {
		names := []string{"tick", "rng", "next_id"}
		values := []int64{int64(d.tick), int64(d.rng), int64(d.nextID)}
		for p, c := range d.credits {
			names = append(names, "credits["+strconv.Itoa(p+1)+"]")
			values = append(values, int64(c))
		}
		return leafLabel(0), names, []EntityFields{{Values: values}}, nil
	}
	var out []EntityFields
	for k := range d.states {
		e := &d.states[k]
		if leafOf(e.Owner, CategoryOf(e)) == i {
			f := entityFields(e, &d.behav[k])
			out = append(out, EntityFields{ID: e.ID, Values: f[:]})
		}
	}
	return leafLabel(i), EntityFieldNames(), out, nil
}

// FaultFields are the fields InjectFault can corrupt.
var FaultFields = []string{"health", "facing", "kills", "cargo", "veterancy", "cooldown"}

// InjectFault corrupts one field of one entity, for desync drills and
// tests: the state stays valid (a snapshot of it restores) but differs
// from every other simulation's. field is one of FaultFields.
func (s *Sim) InjectFault(id protocol.EntityID, field string) error {
	i, ok := s.slotOf(id)
	if !ok {
		return fmt.Errorf("sim: no entity %d", id)
	}
	e, b := &s.states[i], &s.behav[i]
	switch field {
	case "health":
		if e.Health > 1 {
			e.Health--
		} else {
			e.Health++
		}
	case "facing":
		e.Facing = (e.Facing + 1) % FullTurn
	case "kills":
		b.kills++
	case "cargo":
		e.Cargo++
	case "veterancy":
		e.Veterancy = (e.Veterancy + 1) % (MaxVeterancy + 1)
	case "cooldown":
		b.cooldown++
	default:
		return fmt.Errorf("sim: cannot inject a fault into field %q (one of %v)", field, FaultFields)
	}
	return nil
}

// CheckCaches recomputes the derived data the simulation keeps between
// ticks and compares it with the cache (desync debug level 2, OpenTTD's
// CheckCaches): every cached flow field must equal a fresh breadth-first
// search to its goal. (The spatial index and unit counts are rebuilt from
// the state at the start of every tick, so they hold no stale data to
// check.) It returns an error wrapping ErrCacheMismatch naming the first
// bad cache.
func (s *Sim) CheckCaches() error {
	c := &s.paths
	var fresh flowField
	fresh.dist = make([]uint16, len(c.terrain.cells))
	for _, goal := range c.ring {
		f, ok := c.fields[goal]
		if !ok || f.goal != goal {
			return fmt.Errorf("%w: flow field of goal cell %d missing", ErrCacheMismatch, goal)
		}
		c.fill(&fresh, goal)
		if !slices.Equal(f.dist, fresh.dist) {
			return fmt.Errorf("%w: flow field of goal cell %d", ErrCacheMismatch, goal)
		}
	}
	if len(c.fields) != len(c.ring) {
		return fmt.Errorf("%w: %d flow fields for %d goals", ErrCacheMismatch, len(c.fields), len(c.ring))
	}
	return nil
}
