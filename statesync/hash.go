package statesync

import (
	"github.com/OneOfOne/xxhash"
	"github.com/tickwire/tickwire/statesync/msg"
)

// Hasher computes state hashes, keeping its scratch buffer between calls.
// The zero Hasher is ready.
type Hasher struct {
	buf []byte
}

// FullState appends the engine's whole state, as an entity set, to dst:
// the seed's getFullState.
func FullState(dst []byte, e Engine) []byte {
	for id, data := range e.Entities() {
		dst = AppendEntity(dst, id, data)
	}
	return dst
}

// StateHash is the xxHash32 of the engine's full state encoding: the
// seed's computeStateHash, the value every client reports each frame.
// It also returns the number of entities.
func (h *Hasher) StateHash(e Engine) (hash uint32, entities int) {
	h.buf = h.buf[:0]
	for id, data := range e.Entities() {
		h.buf = AppendEntity(h.buf, id, data)
		entities++
	}
	return HashBytes(h.buf), entities
}

// Digest is the state digest of the full state StateHash last hashed: the
// collision-resistant digest a STATE_DIGEST reports, against which
// corrections, their sources' Merkle leaves and full states are checked.
func (h *Hasher) Digest() msg.Digest { return DigestBytes(h.buf) }

// DigestBytes is the state digest of an entity set: LeavesDigest of its
// Merkle leaves, SHA-256 all the way down.
func DigestBytes(set []byte) msg.Digest { return LeavesDigest(LeavesOf(nil, set)) }

// HashBytes is xxHash32 with seed 0, the one hash function of state sync.
func HashBytes(b []byte) uint32 { return xxhash.Checksum32(b) }

// ApplyFullState replaces the engine's state with an entity set: the
// seed's applyFullState. On a malformed set the engine is left empty.
func ApplyFullState(e Engine, set []byte) error {
	e.Reset()
	r := ReadEntities(set)
	for ent, ok := r.Next(); ok; ent, ok = r.Next() {
		if err := e.SetEntity(ent.ID, ent.Data); err != nil {
			e.Reset()
			return err
		}
	}
	if r.Err() != nil {
		e.Reset()
	}
	return r.Err()
}

// FullStatePartition appends the entities with id mod parts == part to dst:
// the seed's getFullStatePartition.
func FullStatePartition(dst []byte, e Engine, part, parts uint16) []byte {
	for id, data := range e.Entities() {
		if id%uint32(parts) == uint32(part) {
			dst = AppendEntity(dst, id, data)
		}
	}
	return dst
}

// MergeEntitySets merges entity sets whose ids are disjoint (the
// partitions of one state) into one set in ascending id order.
func MergeEntitySets(dst []byte, sets [][]byte) ([]byte, error) {
	readers := make([]*EntitySet, len(sets))
	heads := make([]Entity, len(sets))
	live := make([]bool, len(sets))
	for i, s := range sets {
		readers[i] = ReadEntities(s)
		heads[i], live[i] = readers[i].Next()
		if err := readers[i].Err(); err != nil {
			return dst, err
		}
	}
	last, any := uint32(0), false
	for {
		best := -1
		for i := range heads {
			if live[i] && (best < 0 || heads[i].ID < heads[best].ID) {
				best = i
			}
		}
		if best < 0 {
			return dst, nil
		}
		if any && heads[best].ID <= last {
			return dst, ErrMalformed
		}
		dst = AppendEntity(dst, heads[best].ID, heads[best].Data)
		last, any = heads[best].ID, true
		heads[best], live[best] = readers[best].Next()
		if err := readers[best].Err(); err != nil {
			return dst, err
		}
	}
}
