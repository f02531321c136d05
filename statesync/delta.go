package statesync

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/tickwire/tickwire/wire"
)

// Delta is the structural change of one frame: the seed's StateDelta.
// Field changes are not in it: every client computes them from the
// inputs. Only entities created (with their encoding) and deleted.
//
// Encoding (little-endian):
//
//	+-----------+--------------+----------------+--------------------+-----------------+-------------------+
//	| frame u32 | baseHash u32 | resultHash u32 | created: len uvarint, entity set | deleted: count uvarint, ids u32... |
//	+-----------+--------------+----------------+--------------------+-----------------+-------------------+
//
// A delta with no change is 14 bytes (the seed's header was 16). A
// partition of a delta has the same header and only the created and
// deleted entities with id mod parts == part.
type Delta struct {
	Frame      uint32
	BaseHash   uint32 // the state hash before the frame
	ResultHash uint32 // the state hash after it
	Created    []byte // entity set of the entities created
	Deleted    []uint32
}

const deltaHeaderLen = 12

// AppendDelta appends d's encoding to dst.
func AppendDelta(dst []byte, d *Delta) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, d.Frame)
	dst = binary.LittleEndian.AppendUint32(dst, d.BaseHash)
	dst = binary.LittleEndian.AppendUint32(dst, d.ResultHash)
	dst = wire.AppendUvarint(dst, uint64(len(d.Created)))
	dst = append(dst, d.Created...)
	dst = wire.AppendUvarint(dst, uint64(len(d.Deleted)))
	for _, id := range d.Deleted {
		dst = binary.LittleEndian.AppendUint32(dst, id)
	}
	return dst
}

// ParseDelta decodes a delta, checking the created set and the order of
// the deleted ids. Created aliases b.
func ParseDelta(b []byte) (Delta, error) {
	var d Delta
	if len(b) < deltaHeaderLen {
		return d, fmt.Errorf("%w: delta header", ErrMalformed)
	}
	d.Frame = binary.LittleEndian.Uint32(b)
	d.BaseHash = binary.LittleEndian.Uint32(b[4:])
	d.ResultHash = binary.LittleEndian.Uint32(b[8:])
	b = b[deltaHeaderLen:]
	n, k, err := wire.Uvarint(b)
	if err != nil || n > uint64(len(b)-k) {
		return d, fmt.Errorf("%w: delta created length", ErrMalformed)
	}
	d.Created, b = b[k:k+int(n):k+int(n)], b[k+int(n):]
	if err := checkEntitySet(d.Created); err != nil {
		return d, err
	}
	n, k, err = wire.Uvarint(b)
	if err != nil || n != uint64(len(b)-k)/4 || uint64(len(b)-k)%4 != 0 {
		return d, fmt.Errorf("%w: delta deleted ids", ErrMalformed)
	}
	b = b[k:]
	if n > 0 {
		d.Deleted = make([]uint32, n)
		for i := range d.Deleted {
			d.Deleted[i] = binary.LittleEndian.Uint32(b[4*i:])
			if i > 0 && d.Deleted[i] <= d.Deleted[i-1] {
				return d, fmt.Errorf("%w: deleted ids not ascending", ErrMalformed)
			}
		}
	}
	return d, nil
}

// PartitionDelta appends the encoding of partition part of parts of d:
// the seed's getPartition, by entity id as its analysis requires.
func PartitionDelta(dst []byte, d *Delta, part, parts uint16) []byte {
	p := Delta{Frame: d.Frame, BaseHash: d.BaseHash, ResultHash: d.ResultHash}
	var created []byte
	r := ReadEntities(d.Created)
	for e, ok := r.Next(); ok; e, ok = r.Next() {
		if e.ID%uint32(parts) == uint32(part) {
			created = AppendEntity(created, e.ID, e.Data)
		}
	}
	p.Created = created
	for _, id := range d.Deleted {
		if id%uint32(parts) == uint32(part) {
			p.Deleted = append(p.Deleted, id)
		}
	}
	return AppendDelta(dst, &p)
}

// AssembleDelta merges partitions of one frame's delta (any order) into
// the whole delta's encoding. The partitions must share their header.
func AssembleDelta(dst []byte, parts []Delta) ([]byte, error) {
	if len(parts) == 0 {
		return dst, fmt.Errorf("%w: no partitions", ErrMalformed)
	}
	whole := Delta{Frame: parts[0].Frame, BaseHash: parts[0].BaseHash, ResultHash: parts[0].ResultHash}
	sets := make([][]byte, len(parts))
	for i, p := range parts {
		if p.Frame != whole.Frame || p.BaseHash != whole.BaseHash || p.ResultHash != whole.ResultHash {
			return dst, fmt.Errorf("%w: partitions of different frames or states", ErrMalformed)
		}
		sets[i] = p.Created
		whole.Deleted = append(whole.Deleted, p.Deleted...)
	}
	var err error
	if whole.Created, err = MergeEntitySets(nil, sets); err != nil {
		return dst, err
	}
	slices.Sort(whole.Deleted)
	if len(slices.Compact(slices.Clone(whole.Deleted))) != len(whole.Deleted) {
		return dst, fmt.Errorf("%w: an id deleted twice", ErrMalformed)
	}
	return AppendDelta(dst, &whole), nil
}

// DeltaTracker computes each frame's structural delta by comparing the
// entity ids after the frame with those after the frame before: the
// seed's computeStateDelta. The zero DeltaTracker starts from an empty
// state; Reset starts it from an engine's current state.
type DeltaTracker struct {
	prev, cur []uint32
}

// Reset records the engine's current ids as the base of the next delta.
func (t *DeltaTracker) Reset(e Engine) {
	t.prev = t.prev[:0]
	for id := range e.Entities() {
		t.prev = append(t.prev, id)
	}
}

// Compute returns the delta of the frame just simulated. Created aliases
// scratch's storage, which it appends to.
func (t *DeltaTracker) Compute(frame, baseHash, resultHash uint32, e Engine, scratch []byte) Delta {
	d := Delta{Frame: frame, BaseHash: baseHash, ResultHash: resultHash}
	t.cur = t.cur[:0]
	created := scratch[:0]
	i := 0
	for id, data := range e.Entities() {
		t.cur = append(t.cur, id)
		for i < len(t.prev) && t.prev[i] < id {
			d.Deleted = append(d.Deleted, t.prev[i])
			i++
		}
		if i < len(t.prev) && t.prev[i] == id {
			i++
			continue
		}
		created = AppendEntity(created, id, data)
	}
	d.Deleted = append(d.Deleted, t.prev[i:]...)
	d.Created = created
	t.prev, t.cur = t.cur, t.prev
	return d
}
