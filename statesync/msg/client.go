package msg

import (
	"encoding/binary"

	"github.com/tickwire/tickwire/wire"
)

// Input is a client's input. The server puts the latest input of each
// client in the next Tick it broadcasts: the server, not the client,
// decides the frame.
type Input struct {
	Data []byte
}

func (*Input) Type() wire.MessageType { return TypeInput }

func (m *Input) appendTo(b *wire.Builder) { b.Bytes(m.Data) }

func (m *Input) parseFrom(r *wire.Reader) error {
	m.Data = r.Bytes()
	return r.Err()
}

// StateHash is a client's xxHash32 of its full state after a frame: the
// seed's 9-byte message, sent by every client every frame.
type StateHash struct {
	Frame uint32
	Hash  uint32
}

func (*StateHash) Type() wire.MessageType { return TypeStateHash }

func (m *StateHash) appendTo(b *wire.Builder) { b.U32(m.Frame).U32(m.Hash) }

func (m *StateHash) parseFrom(r *wire.Reader) error {
	m.Frame, m.Hash = r.U32(), r.U32()
	return r.Err()
}

// Digest is a SHA-256 digest of a client's canonical full state.
type Digest [32]byte

// StateDigest is a client's collision-resistant digest of its full state
// after a frame and the number of entities in it, sent after every
// StateHash. The vote is on the hash; the digest agreed by more than half
// of the voters is what corrections and full states are checked against,
// and the entity count gives the server the frame's partition count.
type StateDigest struct {
	Frame    uint32
	Entities uint32
	Digest   Digest
}

func (*StateDigest) Type() wire.MessageType { return TypeStateDigest }

func (m *StateDigest) appendTo(b *wire.Builder) {
	b.U32(m.Frame).U32(m.Entities)
	appendDigest(b, &m.Digest)
}

func (m *StateDigest) parseFrom(r *wire.Reader) error {
	m.Frame, m.Entities = r.U32(), r.U32()
	readDigest(r, &m.Digest)
	return r.Err()
}

// appendDigest writes a digest's 32 bytes as they are.
func appendDigest(b *wire.Builder, d *Digest) {
	for i := 0; i < len(d); i += 8 {
		b.U64(binary.LittleEndian.Uint64(d[i:]))
	}
}

func readDigest(r *wire.Reader, d *Digest) {
	for i := 0; i < len(d); i += 8 {
		binary.LittleEndian.PutUint64(d[i:], r.U64())
	}
}

// MerkleLeaves is a client's Merkle leaf hashes of its state after a frame,
// sent when a Tick request asks for them.
type MerkleLeaves struct {
	Frame  uint32
	Leaves []Leaf // strictly ascending buckets
}

// Leaf is one Merkle leaf: the bucket of entity ids it covers and the
// first 8 bytes of the SHA-256 of their encodings.
type Leaf struct {
	Bucket uint32
	Hash   uint64
}

func (*MerkleLeaves) Type() wire.MessageType { return TypeMerkleLeaves }

func (m *MerkleLeaves) appendTo(b *wire.Builder) {
	b.U32(m.Frame).ArrayHeader(uint32(len(m.Leaves)))
	for _, l := range m.Leaves {
		b.Elem().U32(l.Bucket).U64(l.Hash)
	}
}

func (m *MerkleLeaves) parseFrom(r *wire.Reader) error {
	m.Frame = r.U32()
	if n := listHeader(r, 12); n > 0 {
		m.Leaves = make([]Leaf, n)
		for i := range m.Leaves {
			m.Leaves[i] = Leaf{Bucket: r.U32(), Hash: r.U64()}
			if r.Err() == nil && i > 0 && m.Leaves[i].Bucket <= m.Leaves[i-1].Bucket {
				return invalid(r, "leaves not strictly ascending")
			}
		}
	}
	return r.Err()
}

// SyncRequest asks the server to resend what a client is missing.
type SyncRequest struct {
	What SyncWhat
}

// SyncWhat is a set of things a client asks for again.
type SyncWhat uint8

// Things a SyncRequest may ask for.
const (
	SyncReliability SyncWhat = 1 << 0 // the current ReliabilityUpdate
	SyncClientList  SyncWhat = 1 << 1 // the current ClientListUpdate
	SyncFullState   SyncWhat = 1 << 2 // a full resync (the client lost its state)
	syncAll                  = SyncReliability | SyncClientList | SyncFullState
)

func (*SyncRequest) Type() wire.MessageType { return TypeSyncRequest }

func (m *SyncRequest) appendTo(b *wire.Builder) { b.U8(uint8(m.What)) }

func (m *SyncRequest) parseFrom(r *wire.Reader) error {
	m.What = SyncWhat(r.U8())
	if r.Err() == nil && (m.What == 0 || m.What&^syncAll != 0) {
		return invalid(r, "sync request")
	}
	return r.Err()
}
