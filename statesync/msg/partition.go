package msg

import "github.com/tickwire/tickwire/wire"

// PartitionData is one partition of a frame's structural delta, sent by
// the client the assignment chose or asked for by a PartitionRequest.
type PartitionData struct {
	Frame       uint32
	ListVersion uint32 // the client list version the sender assigned with
	Part, Parts uint16
	Encoding    Encoding
	Data        []byte
}

func (*PartitionData) Type() wire.MessageType { return TypePartitionData }

func (m *PartitionData) appendTo(b *wire.Builder) {
	b.U32(m.Frame).U32(m.ListVersion).U16(m.Part).U16(m.Parts).U8(uint8(m.Encoding)).Bytes(m.Data)
}

func (m *PartitionData) parseFrom(r *wire.Reader) error {
	m.Frame, m.ListVersion, m.Part, m.Parts = r.U32(), r.U32(), r.U16(), r.U16()
	if r.Err() == nil && m.Part >= m.Parts {
		return invalid(r, "partition beyond its count")
	}
	var err error
	if m.Encoding, err = readEncoding(r); err != nil {
		return err
	}
	m.Data = r.Bytes()
	return r.Err()
}

// PartitionRequest asks a client for partition Part of Parts of a frame's
// delta. Parts 0 asks for every partition of the frame.
type PartitionRequest struct {
	Frame       uint32
	Part, Parts uint16
}

func (*PartitionRequest) Type() wire.MessageType { return TypePartitionRequest }

func (m *PartitionRequest) appendTo(b *wire.Builder) { b.U32(m.Frame).U16(m.Part).U16(m.Parts) }

func (m *PartitionRequest) parseFrom(r *wire.Reader) error {
	m.Frame, m.Part, m.Parts = r.U32(), r.U16(), r.U16()
	if r.Err() == nil && m.Parts != 0 && m.Part >= m.Parts || m.Parts == 0 && m.Part != 0 {
		return invalid(r, "partition request")
	}
	return r.Err()
}

// EntityRequest asks a client that kept a frame's state (RequestLeaves)
// for the entities of the listed Merkle buckets.
type EntityRequest struct {
	Frame   uint32
	Buckets []uint32 // strictly ascending
}

func (*EntityRequest) Type() wire.MessageType { return TypeEntityRequest }

func (m *EntityRequest) appendTo(b *wire.Builder) {
	b.U32(m.Frame)
	appendIDs(b, m.Buckets)
}

func (m *EntityRequest) parseFrom(r *wire.Reader) error {
	m.Frame = r.U32()
	var err error
	m.Buckets, err = parseIDs(r)
	return err
}

// EntityKind says what an EntityData holds.
type EntityKind uint8

// Entity data kinds.
const (
	// EntitiesFullPart: partition Part of Parts of the full state.
	EntitiesFullPart EntityKind = 1
	// EntitiesBuckets: the entities of the buckets an EntityRequest named.
	EntitiesBuckets EntityKind = 2
)

// EntityData carries entities of a client's state at a frame, encoded as
// an entity set, for a late joiner or a correction.
type EntityData struct {
	Frame       uint32
	Kind        EntityKind
	Part, Parts uint16 // for EntitiesFullPart; zero otherwise
	Encoding    Encoding
	Data        []byte
}

func (*EntityData) Type() wire.MessageType { return TypeEntityData }

func (m *EntityData) appendTo(b *wire.Builder) {
	b.U32(m.Frame).U8(uint8(m.Kind)).U16(m.Part).U16(m.Parts).U8(uint8(m.Encoding)).Bytes(m.Data)
}

func (m *EntityData) parseFrom(r *wire.Reader) error {
	m.Frame, m.Kind, m.Part, m.Parts = r.U32(), EntityKind(r.U8()), r.U16(), r.U16()
	if r.Err() == nil {
		switch {
		case m.Kind == EntitiesFullPart && m.Part < m.Parts:
		case m.Kind == EntitiesBuckets && m.Part == 0 && m.Parts == 0:
		default:
			return invalid(r, "entity data kind")
		}
	}
	var err error
	if m.Encoding, err = readEncoding(r); err != nil {
		return err
	}
	m.Data = r.Bytes()
	return r.Err()
}

// PartitionCorrection replaces the entities of the listed Merkle buckets of
// a desynced client's frozen state with the majority's. After applying it
// the client's state hash must equal Hash.
type PartitionCorrection struct {
	Frame    uint32
	Hash     uint32   // the majority hash of Frame
	Digest   Digest   // the majority-agreed state digest of Frame
	Buckets  []uint32 // strictly ascending
	Encoding Encoding
	Data     []byte // an entity set holding the buckets' entities
}

func (*PartitionCorrection) Type() wire.MessageType { return TypePartitionCorrection }

func (m *PartitionCorrection) appendTo(b *wire.Builder) {
	b.U32(m.Frame).U32(m.Hash)
	appendDigest(b, &m.Digest)
	appendIDs(b, m.Buckets)
	b.U8(uint8(m.Encoding)).Bytes(m.Data)
}

func (m *PartitionCorrection) parseFrom(r *wire.Reader) error {
	m.Frame, m.Hash = r.U32(), r.U32()
	readDigest(r, &m.Digest)
	var err error
	if m.Buckets, err = parseIDs(r); err != nil {
		return err
	}
	if m.Encoding, err = readEncoding(r); err != nil {
		return err
	}
	m.Data = r.Bytes()
	return r.Err()
}

// FullState is partition Part of Parts of the full state at Frame, sent to
// a late joiner or to a client recovering by snapshot. Hash is the
// majority hash of Frame, which the assembled state must match.
type FullState struct {
	Frame       uint32
	Hash        uint32
	Digest      Digest // the majority-agreed state digest of Frame
	Part, Parts uint16
	Encoding    Encoding
	Data        []byte
}

func (*FullState) Type() wire.MessageType { return TypeFullState }

func (m *FullState) appendTo(b *wire.Builder) {
	b.U32(m.Frame).U32(m.Hash)
	appendDigest(b, &m.Digest)
	b.U16(m.Part).U16(m.Parts).U8(uint8(m.Encoding)).Bytes(m.Data)
}

func (m *FullState) parseFrom(r *wire.Reader) error {
	m.Frame, m.Hash = r.U32(), r.U32()
	readDigest(r, &m.Digest)
	m.Part, m.Parts = r.U16(), r.U16()
	if r.Err() == nil && m.Part >= m.Parts {
		return invalid(r, "full state part beyond its count")
	}
	var err error
	if m.Encoding, err = readEncoding(r); err != nil {
		return err
	}
	m.Data = r.Bytes()
	return r.Err()
}
