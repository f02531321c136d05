package statesync

import (
	"iter"

	"github.com/tickwire/tickwire/statesync/msg"
)

// Engine is what a game implements to be played in a state-sync room: the
// seed's StateSyncEngine, reduced to the entity level. The seed's other
// methods (computeStateHash, computeStateDelta, getPartition,
// applyStateDelta, getFullState, getFullStatePartition, applyFullState)
// are functions of this package written once over Entities, SetEntity and
// RemoveEntity, so every game hashes, partitions and compresses the same
// way and cannot get them subtly wrong.
//
// The state of a game is a set of entities keyed by uint32 id, each with a
// canonical byte encoding: two states are equal iff their entities and
// encodings are. World-level variables (a random generator, the next id to
// allocate) belong to the state too; a game keeps them in an entity of its
// own (id 0 by convention) so that late joiners receive them.
//
// An Engine must be deterministic: the same state and the same inputs give
// the same next state on every machine. It is used by one goroutine.
type Engine interface {
	// Step simulates frame with its inputs, one per client in ascending
	// client order.
	Step(frame uint32, inputs []msg.ClientInput)
	// Entities yields every entity in ascending id order with its
	// encoding. The encoding is valid only until the next yield.
	Entities() iter.Seq2[uint32, []byte]
	// SetEntity creates entity id, or replaces it, from its encoding. It
	// returns an error, changing nothing, if the encoding is invalid.
	SetEntity(id uint32, data []byte) error
	// RemoveEntity deletes entity id if it exists.
	RemoveEntity(id uint32)
	// Reset empties the state.
	Reset()
}

// Differ is implemented by engines that can explain how two encodings of
// the same entity differ, field by field. Desync recovery logs its answer.
type Differ interface {
	// DiffEntity describes the fields in which mine and theirs differ;
	// either may be nil when one side lacks the entity.
	DiffEntity(id uint32, mine, theirs []byte) string
}
