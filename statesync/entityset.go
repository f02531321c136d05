package statesync

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Errors of the entity-set, delta and compression decoders. Test with
// errors.Is.
var (
	// ErrMalformed: bytes that no encoder of this package writes.
	ErrMalformed = errors.New("statesync: malformed data")
	// ErrTooLarge: data that would decompress beyond its limit.
	ErrTooLarge = errors.New("statesync: data too large")
)

// An entity set is the canonical encoding of a set of entities, and the
// bytes that the state hash, Merkle leaves, full state and corrections are
// made of:
//
//	+--------+-----------------+------------+--------+-----------------+----
//	| id u32 | len uvarint     | data       | id u32 | len uvarint     | ...
//	+--------+-----------------+------------+--------+-----------------+----
//
// ids strictly ascending, little-endian; an empty set is zero bytes.

// AppendEntity appends one entity to an entity set. The caller appends in
// ascending id order.
func AppendEntity(dst []byte, id uint32, data []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, id)
	dst = wire.AppendUvarint(dst, uint64(len(data)))
	return append(dst, data...)
}

// Entity is one entity of a set. Data aliases the set it was read from.
type Entity struct {
	ID   uint32
	Data []byte
}

// EntitySet iterates over an encoded entity set, checking it as it goes:
// after the loop, Err reports whether the set was well formed.
type EntitySet struct {
	rest []byte
	last uint32
	n    int
	err  error
}

// ReadEntities starts reading set.
func ReadEntities(set []byte) *EntitySet { return &EntitySet{rest: set} }

// Next returns the next entity, or false at the end or on an error.
func (s *EntitySet) Next() (Entity, bool) {
	if s.err != nil || len(s.rest) == 0 {
		return Entity{}, false
	}
	if len(s.rest) < 4 {
		s.err = fmt.Errorf("%w: entity id cut short", ErrMalformed)
		return Entity{}, false
	}
	id := binary.LittleEndian.Uint32(s.rest)
	if s.n > 0 && id <= s.last {
		s.err = fmt.Errorf("%w: entity ids not ascending at %d", ErrMalformed, id)
		return Entity{}, false
	}
	n, k, err := wire.Uvarint(s.rest[4:])
	if err != nil {
		s.err = fmt.Errorf("%w: entity %d length: %w", ErrMalformed, id, err)
		return Entity{}, false
	}
	body := s.rest[4+k:]
	if n > uint64(len(body)) {
		s.err = fmt.Errorf("%w: entity %d longer than the set", ErrMalformed, id)
		return Entity{}, false
	}
	s.rest = body[n:]
	s.last, s.n = id, s.n+1
	return Entity{ID: id, Data: body[:n:n]}, true
}

// Err is the first malformation found, or nil.
func (s *EntitySet) Err() error { return s.err }

// ParseEntities returns every entity of set, or an error if it is
// malformed. The slice grows with what is read, never with a count.
func ParseEntities(set []byte) ([]Entity, error) {
	var out []Entity
	r := ReadEntities(set)
	for e, ok := r.Next(); ok; e, ok = r.Next() {
		out = append(out, e)
	}
	return out, r.Err()
}

// checkEntitySet reports whether set is well formed.
func checkEntitySet(set []byte) error {
	r := ReadEntities(set)
	for _, ok := r.Next(); ok; _, ok = r.Next() {
	}
	return r.Err()
}
