package msg

import (
	"fmt"
	"unicode/utf8"

	"github.com/tickwire/tickwire/wire"
)

// Message types of desync diagnosis (see the package documentation for
// their layouts).
const (
	TypeDesyncDebugRequest wire.MessageType = 0x804A
	TypeDesyncDebugReport  wire.MessageType = 0x804B
	TypeMerkleQuery        wire.MessageType = 0x804C
	TypeMerkleNodes        wire.MessageType = 0x804D
	TypeLeafEntities       wire.MessageType = 0x804E
	TypeDesyncReport       wire.MessageType = 0x804F
	TypeDebugLevel         wire.MessageType = 0xC0004C
)

// Bounds of the desync messages, checked by Append and Decode.
const (
	MaxDebugLevel   = 3       // debug levels are 0..3
	MaxMerkleDepth  = 24      // leaves of a state tree at most 2²⁴
	MaxLabel        = 64      // bytes of a leaf's label
	MaxLeafFields   = 64      // fields of a leaf's entities
	MaxFieldName    = 32      // bytes of a field's name
	MaxReportJSON   = 1 << 20 // bytes of a DesyncReport's document
	maxMerkleLeaves = 1 << MaxMerkleDepth
)

// DebugLevel tells every client the room's desync debug level at the
// start of the match (before SeedResult), when it is above 0: 1 logs
// every order, 2 also validates derived caches every tick, 3 also saves
// periodic snapshots. A client uses the higher of it and its own.
// Relay → all.
type DebugLevel struct {
	Level uint8
}

// DesyncDebugRequest opens the desync walk: every client answers with a
// DesyncDebugReport about the state it hashed for Tick. Relay → all.
type DesyncDebugRequest struct {
	Tick  uint64
	Level uint8
}

// DesyncDebugReport is a client's state at the desync's tick: its hash
// (the Merkle root), its RNG state, the number of leaves of its state
// tree and the root's two children (none for a tree of one leaf).
// Client → relay.
type DesyncDebugReport struct {
	Tick      uint64
	StateHash uint64
	RNG       uint64
	Leaves    uint32
	Children  []uint64 // 0 or 2
}

// MerkleQuery asks one client about node (Depth, Index) of its state tree
// at Tick: for an interior node its two children (MerkleNodes), for a
// leaf (Depth = the tree's depth) the leaf's entities (LeafEntities).
// Relay → one client.
type MerkleQuery struct {
	Tick  uint64
	Depth uint8
	Index uint32
}

// MerkleNodes answers a MerkleQuery about an interior node with its two
// children. Client → relay.
type MerkleNodes struct {
	Tick        uint64
	Depth       uint8
	Index       uint32
	Left, Right uint64
}

// LeafEntities answers a MerkleQuery about a leaf: what the leaf hashes,
// entity by entity, as named fields. Client → relay.
type LeafEntities struct {
	Tick     uint64
	Leaf     uint32
	Label    string   // the entity group, e.g. "player 2 units"
	Fields   []string // the field names, the same for every entity
	Entities []LeafEntity
}

// LeafEntity is one entity of a leaf: its id and one value per field.
type LeafEntity struct {
	ID     uint32
	Values []int64
}

// DesyncReport is the outcome of the walk, the same document the relay
// writes to desync_report_{seed}_{tick}.json. Relay → all.
type DesyncReport struct {
	Tick uint64
	JSON []byte
}

func (*DebugLevel) Type() wire.MessageType         { return TypeDebugLevel }
func (*DesyncDebugRequest) Type() wire.MessageType { return TypeDesyncDebugRequest }
func (*DesyncDebugReport) Type() wire.MessageType  { return TypeDesyncDebugReport }
func (*MerkleQuery) Type() wire.MessageType        { return TypeMerkleQuery }
func (*MerkleNodes) Type() wire.MessageType        { return TypeMerkleNodes }
func (*LeafEntities) Type() wire.MessageType       { return TypeLeafEntities }
func (*DesyncReport) Type() wire.MessageType       { return TypeDesyncReport }

// paired is a message whose encoding and parse sit side by side (the
// desync messages; the older ones are still in Codec's two switches).
type paired interface {
	Message
	appendFields(b *wire.Builder) error
	parseFields(r *wire.Reader) error
}

// pairedTypes makes an empty message of each paired type for Decode.
var pairedTypes = map[wire.MessageType]func() paired{
	TypeDebugLevel:         func() paired { return new(DebugLevel) },
	TypeDesyncDebugRequest: func() paired { return new(DesyncDebugRequest) },
	TypeDesyncDebugReport:  func() paired { return new(DesyncDebugReport) },
	TypeMerkleQuery:        func() paired { return new(MerkleQuery) },
	TypeMerkleNodes:        func() paired { return new(MerkleNodes) },
	TypeLeafEntities:       func() paired { return new(LeafEntities) },
	TypeDesyncReport:       func() paired { return new(DesyncReport) },
}

// check returns ErrRange unless ok.
func check(ok bool) error {
	if !ok {
		return ErrRange
	}
	return nil
}

func (m *DebugLevel) appendFields(b *wire.Builder) error {
	b.U8(m.Level)
	return check(m.Level <= MaxDebugLevel)
}

func (m *DebugLevel) parseFields(r *wire.Reader) error {
	m.Level = r.U8()
	return check(!r.Valid() || m.Level <= MaxDebugLevel)
}

func (m *DesyncDebugRequest) appendFields(b *wire.Builder) error {
	b.Uvarint(m.Tick).U8(m.Level)
	return check(m.Level <= MaxDebugLevel)
}

func (m *DesyncDebugRequest) parseFields(r *wire.Reader) error {
	m.Tick, m.Level = r.Uvarint(), r.U8()
	return check(!r.Valid() || m.Level <= MaxDebugLevel)
}

func (m *DesyncDebugReport) appendFields(b *wire.Builder) error {
	b.Uvarint(m.Tick).U64(m.StateHash).U64(m.RNG).Uvarint(uint64(m.Leaves)).U8(uint8(len(m.Children)))
	for _, h := range m.Children {
		b.U64(h)
	}
	return check(m.Leaves >= 1 && m.Leaves <= maxMerkleLeaves && len(m.Children) == childrenOf(m.Leaves))
}

func (m *DesyncDebugReport) parseFields(r *wire.Reader) error {
	m.Tick, m.StateHash, m.RNG = r.Uvarint(), r.U64(), r.U64()
	leaves, n := r.Uvarint(), int(r.U8())
	if !r.Valid() {
		return nil
	}
	if leaves < 1 || leaves > maxMerkleLeaves || n != childrenOf(uint32(leaves)) {
		return ErrRange
	}
	m.Leaves = uint32(leaves)
	for range n {
		m.Children = append(m.Children, r.U64())
	}
	return nil
}

// childrenOf is how many children of the root a report carries.
func childrenOf(leaves uint32) int {
	if leaves > 1 {
		return 2
	}
	return 0
}

func (m *MerkleQuery) appendFields(b *wire.Builder) error {
	b.Uvarint(m.Tick).U8(m.Depth).Uvarint(uint64(m.Index))
	return checkNode(m.Depth, uint64(m.Index))
}

func (m *MerkleQuery) parseFields(r *wire.Reader) error {
	m.Tick, m.Depth = r.Uvarint(), r.U8()
	idx := r.Uvarint()
	m.Index = uint32(idx)
	if !r.Valid() {
		return nil
	}
	return checkNode(m.Depth, idx)
}

// checkNode checks that (depth, index) can be a node of a state tree.
func checkNode(depth uint8, index uint64) error {
	return check(depth <= MaxMerkleDepth && index < 1<<depth)
}

func (m *MerkleNodes) appendFields(b *wire.Builder) error {
	b.Uvarint(m.Tick).U8(m.Depth).Uvarint(uint64(m.Index)).U64(m.Left).U64(m.Right)
	return check(m.Depth < MaxMerkleDepth && uint64(m.Index) < 1<<m.Depth)
}

func (m *MerkleNodes) parseFields(r *wire.Reader) error {
	m.Tick, m.Depth = r.Uvarint(), r.U8()
	idx := r.Uvarint()
	m.Index, m.Left, m.Right = uint32(idx), r.U64(), r.U64()
	return check(!r.Valid() || (m.Depth < MaxMerkleDepth && idx < 1<<m.Depth))
}

func (m *LeafEntities) appendFields(b *wire.Builder) error {
	ok := m.Leaf < maxMerkleLeaves && validName(m.Label, MaxLabel) && len(m.Fields) <= MaxLeafFields
	b.Uvarint(m.Tick).Uvarint(uint64(m.Leaf)).String(m.Label).Uvarint(uint64(len(m.Fields)))
	for _, f := range m.Fields {
		ok = ok && validName(f, MaxFieldName)
		b.String(f)
	}
	b.Uvarint(uint64(len(m.Entities)))
	for _, e := range m.Entities {
		ok = ok && len(e.Values) == len(m.Fields)
		b.Uvarint(uint64(e.ID))
		for _, v := range e.Values {
			b.Varint(v)
		}
	}
	return check(ok)
}

func (m *LeafEntities) parseFields(r *wire.Reader) error {
	m.Tick = r.Uvarint()
	leaf := r.Uvarint()
	m.Leaf = uint32(leaf)
	m.Label = string(r.Bytes())
	nf := r.Uvarint()
	if !r.Valid() {
		return nil
	}
	if leaf >= maxMerkleLeaves || !validName(m.Label, MaxLabel) || nf > MaxLeafFields || nf > uint64(r.Remaining()) {
		return ErrRange
	}
	for range nf {
		f := string(r.Bytes())
		if r.Valid() && !validName(f, MaxFieldName) {
			return ErrRange
		}
		m.Fields = append(m.Fields, f)
	}
	// An entity takes at least one byte of id and one per value: check
	// the count against what is left before allocating.
	n := r.Uvarint()
	if !r.Valid() {
		return nil
	}
	if rem := uint64(r.Remaining()); n > rem || n*(1+nf) > rem { // n ≤ rem first: the product cannot wrap
		return fmt.Errorf("%w: %d entities of %d fields in %d bytes", wire.ErrTooLarge, n, nf, r.Remaining())
	}
	if n > 0 {
		m.Entities = make([]LeafEntity, n)
	}
	for i := range m.Entities {
		e := &m.Entities[i]
		id := r.Uvarint()
		if id > 1<<32-1 && r.Valid() {
			return ErrRange
		}
		e.ID = uint32(id)
		if nf > 0 {
			e.Values = make([]int64, nf)
		}
		for k := range e.Values {
			e.Values[k] = r.Varint()
		}
	}
	return nil
}

// validName is a label or field name: UTF-8, non-empty for a field,
// within max bytes.
func validName(s string, max int) bool { return len(s) <= max && utf8.ValidString(s) }

func (m *DesyncReport) appendFields(b *wire.Builder) error {
	b.Uvarint(m.Tick).Bytes(m.JSON)
	return check(len(m.JSON) <= MaxReportJSON)
}

func (m *DesyncReport) parseFields(r *wire.Reader) error {
	m.Tick = r.Uvarint()
	if p := r.Bytes(); len(p) > 0 {
		m.JSON = append([]byte(nil), p...)
	}
	return check(len(m.JSON) <= MaxReportJSON)
}
