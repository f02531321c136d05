package msg

import (
	"bytes"

	"github.com/tickwire/tickwire/wire"
)

// Message types of reconnection by snapshot donor and of observers.
const (
	TypeSnapshotChunk   wire.MessageType = 0x8045
	TypeSnapshotHash    wire.MessageType = 0x8046
	TypeSnapshotVerdict wire.MessageType = 0x8047
	TypeRejoinKeepalive wire.MessageType = 0x8048
	TypeCaughtUp        wire.MessageType = 0x8049
	TypeSnapshotDigest  wire.MessageType = 0x8060
	TypeRejoinStart     wire.MessageType = 0xC00047
	TypeSnapshotRequest wire.MessageType = 0xC00048
	TypeObserverHello   wire.MessageType = 0xC00049
	TypeDigestRequest   wire.MessageType = 0xC0004A
)

// DigestSize is the size of a snapshot digest: SHA-256.
const DigestSize = 32

// Bounds of a snapshot transfer: a chunk carries at most MaxChunkBytes,
// a snapshot at most MaxSnapshotChunks chunks (16 MiB).
const (
	MaxChunkBytes     = 16 << 10
	MaxSnapshotChunks = 1024
)

// RejoinStart opens a snapshot transfer to a rejoining player or an
// observer: the match's timing and seed, and the tick whose snapshot a
// donor was asked for. A new attempt (another donor) sends a new one.
// Relay → the recipient.
type RejoinStart struct {
	Seed           uint64
	StartUs        uint64 // relay time tick 0's window opened
	TickIntervalUs uint32
	DeadlineUs     uint32
	RunAhead       uint8
	Attempt        uint8  // 1 for the first donor, 2 for the next, …
	SnapshotTick   uint64 // the donor snapshots after applying this tick
	DelayTicks     uint32 // an observer's feed delay; 0 for a player
}

// SnapshotRequest asks a donor to send its state after applying Tick.
// Relay → the donor.
type SnapshotRequest struct {
	Tick uint64
}

// SnapshotChunk is one piece of a snapshot: donor → relay, then relay →
// the recipient unchanged. Index counts from 0 to Total-1.
type SnapshotChunk struct {
	Tick         uint64
	Index, Total uint16
	Data         []byte
}

// SnapshotHash is the sync hash the players agreed for Tick, against
// which the recipient verifies the snapshot before loading it. Relay →
// the recipient.
type SnapshotHash struct {
	Tick uint64
	Hash uint64
}

// DigestRequest asks a witness (an active player that is neither the
// donor nor the recipient) for the digest of its own snapshot after
// applying Tick. Relay → each witness.
type DigestRequest struct {
	Tick uint64
}

// SnapshotDigest is the SHA-256 of a snapshot after applying Tick: a
// witness's own (witness → relay), then the one a strict majority of the
// witnesses reported, against which the recipient checks the donor's
// bytes (relay → the recipient).
type SnapshotDigest struct {
	Tick   uint64
	Digest [DigestSize]byte
}

// SnapshotVerdict reports whether the snapshot of Tick matched the agreed
// hash and was loaded. Recipient → relay.
type SnapshotVerdict struct {
	Tick uint64
	OK   bool
}

// RejoinKeepalive keeps a rejoining client's connection and patience
// alive during the download: the relay's next tick and the chunks
// relayed so far. Relay → the recipient, once a second.
type RejoinKeepalive struct {
	NextTick uint64
	Chunks   uint16
}

// CaughtUp says the rejoining client has applied every frame up to Tick:
// it is active again and submits from now on. Client → relay.
type CaughtUp struct {
	Tick uint64
}

// ObserverHello is an observer's first message: the feed delay it asks
// for (the room's own delay_ticks is the least it gets). Observer →
// relay.
type ObserverHello struct {
	DelayTicks uint32
}

func (*RejoinStart) Type() wire.MessageType     { return TypeRejoinStart }
func (*SnapshotRequest) Type() wire.MessageType { return TypeSnapshotRequest }
func (*SnapshotChunk) Type() wire.MessageType   { return TypeSnapshotChunk }
func (*SnapshotHash) Type() wire.MessageType    { return TypeSnapshotHash }
func (*SnapshotVerdict) Type() wire.MessageType { return TypeSnapshotVerdict }
func (*RejoinKeepalive) Type() wire.MessageType { return TypeRejoinKeepalive }
func (*CaughtUp) Type() wire.MessageType        { return TypeCaughtUp }
func (*ObserverHello) Type() wire.MessageType   { return TypeObserverHello }
func (*DigestRequest) Type() wire.MessageType   { return TypeDigestRequest }
func (*SnapshotDigest) Type() wire.MessageType  { return TypeSnapshotDigest }

var rejoinNames = map[wire.MessageType]string{
	TypeRejoinStart:     "RejoinStart",
	TypeSnapshotRequest: "SnapshotRequest",
	TypeSnapshotChunk:   "SnapshotChunk",
	TypeSnapshotHash:    "SnapshotHash",
	TypeSnapshotVerdict: "SnapshotVerdict",
	TypeRejoinKeepalive: "RejoinKeepalive",
	TypeCaughtUp:        "CaughtUp",
	TypeObserverHello:   "ObserverHello",
	TypeDigestRequest:   "DigestRequest",
	TypeSnapshotDigest:  "SnapshotDigest",
}

// appendRejoin writes the fields of a rejoin message; ok is false for a
// message that is not one.
func appendRejoin(b *wire.Builder, m Message) (ok bool, err error) {
	switch m := m.(type) {
	case *RejoinStart:
		b.U64(m.Seed).Uvarint(m.StartUs).Uvarint(uint64(m.TickIntervalUs)).Uvarint(uint64(m.DeadlineUs)).
			U8(m.RunAhead).U8(m.Attempt).Uvarint(m.SnapshotTick).Uvarint(uint64(m.DelayTicks))
	case *SnapshotRequest:
		b.Uvarint(m.Tick)
	case *SnapshotChunk:
		if !chunkValid(m.Index, m.Total, len(m.Data)) {
			return true, ErrRange
		}
		b.Uvarint(m.Tick).Uvarint(uint64(m.Index)).Uvarint(uint64(m.Total)).Bytes(m.Data)
	case *SnapshotHash:
		b.Uvarint(m.Tick).U64(m.Hash)
	case *SnapshotVerdict:
		b.Uvarint(m.Tick).Bool(m.OK)
	case *RejoinKeepalive:
		b.Uvarint(m.NextTick).Uvarint(uint64(m.Chunks))
	case *CaughtUp:
		b.Uvarint(m.Tick)
	case *ObserverHello:
		b.Uvarint(uint64(m.DelayTicks))
	case *DigestRequest:
		b.Uvarint(m.Tick)
	case *SnapshotDigest:
		b.Uvarint(m.Tick).Fixed(m.Digest[:])
	default:
		return false, nil
	}
	return true, nil
}

// chunkValid: index within total, total within MaxSnapshotChunks, data
// within MaxChunkBytes and not empty.
func chunkValid(index, total uint16, size int) bool {
	return total >= 1 && total <= MaxSnapshotChunks && index < total && size >= 1 && size <= MaxChunkBytes
}

// decodeRejoin reads the fields of a rejoin message of type t; ok is
// false for a type that is not one.
func decodeRejoin(r *wire.Reader, t wire.MessageType, errp *error) (m Message, ok bool) {
	switch t {
	case TypeRejoinStart:
		s := &RejoinStart{Seed: r.U64(), StartUs: r.Uvarint()}
		s.TickIntervalUs = u32(r, errp)
		s.DeadlineUs = u32(r, errp)
		s.RunAhead, s.Attempt = r.U8(), r.U8()
		s.SnapshotTick = r.Uvarint()
		s.DelayTicks = u32(r, errp)
		return s, true
	case TypeSnapshotRequest:
		return &SnapshotRequest{Tick: r.Uvarint()}, true
	case TypeSnapshotChunk:
		c := &SnapshotChunk{Tick: r.Uvarint()}
		c.Index, c.Total = u16(r, errp), u16(r, errp)
		c.Data = bytes.Clone(r.Bytes())
		if r.Valid() && *errp == nil && !chunkValid(c.Index, c.Total, len(c.Data)) {
			*errp = ErrRange
		}
		return c, true
	case TypeSnapshotHash:
		return &SnapshotHash{Tick: r.Uvarint(), Hash: r.U64()}, true
	case TypeSnapshotVerdict:
		v := &SnapshotVerdict{Tick: r.Uvarint()}
		switch r.U8() {
		case 0:
		case 1:
			v.OK = true
		default:
			if r.Valid() && *errp == nil {
				*errp = ErrRange
			}
		}
		return v, true
	case TypeRejoinKeepalive:
		k := &RejoinKeepalive{NextTick: r.Uvarint()}
		k.Chunks = u16(r, errp)
		return k, true
	case TypeCaughtUp:
		return &CaughtUp{Tick: r.Uvarint()}, true
	case TypeObserverHello:
		return &ObserverHello{DelayTicks: u32(r, errp)}, true
	case TypeDigestRequest:
		return &DigestRequest{Tick: r.Uvarint()}, true
	case TypeSnapshotDigest:
		d := &SnapshotDigest{Tick: r.Uvarint()}
		copy(d.Digest[:], r.Fixed(DigestSize))
		return d, true
	}
	return nil, false
}
