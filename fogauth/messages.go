package fogauth

import (
	"encoding/binary"
	"fmt"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// PartID names one StateUpdate: its tick and the entity of its first delta
// (one tick's StateUpdates carry disjoint entities, so the pair is unique).
// StateUpdates without deltas are never acknowledged.
type PartID struct {
	Tick  uint64
	First protocol.EntityID
}

// ackEntrySize is the size of one PartID in an Ack.
const ackEntrySize = 12

// AppendAck appends an Ack listing parts in the order the client applied
// them.
func AppendAck(b []byte, parts []PartID) []byte {
	b = append(b, TypeAck)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(parts)))
	for _, p := range parts {
		b = binary.LittleEndian.AppendUint64(b, p.Tick)
		b = binary.LittleEndian.AppendUint32(b, uint32(p.First))
	}
	return b
}

// ParseAck decodes an Ack into dst's storage. The count is checked against
// the message's length before anything is allocated.
func ParseAck(b []byte, dst []PartID) ([]PartID, error) {
	if len(b) < 3 {
		return nil, ErrTruncated
	}
	if b[0] != TypeAck {
		return nil, fmt.Errorf("%w: 0x%02x", ErrMessageType, b[0])
	}
	n := int(binary.LittleEndian.Uint16(b[1:]))
	rest := b[3:]
	if len(rest) != n*ackEntrySize {
		return nil, ErrTruncated
	}
	dst = dst[:0]
	for i := range n {
		e := rest[i*ackEntrySize:]
		dst = append(dst, PartID{Tick: binary.LittleEndian.Uint64(e), First: protocol.EntityID(binary.LittleEndian.Uint32(e[8:]))})
	}
	return dst, nil
}

// RejectReason says why the server refused an order: a sim.OrderValidity
// other than Valid, or one of the server's own reasons below.
type RejectReason uint8

// The server's own rejection reasons.
const (
	// RejectRate: the client sent more orders for one tick than
	// Config.MaxOrdersPerTick.
	RejectRate RejectReason = 0x80
	// RejectSpectator: spectators give no orders.
	RejectSpectator RejectReason = 0x81
)

func (r RejectReason) String() string {
	switch r {
	case RejectRate:
		return "too many orders"
	case RejectSpectator:
		return "spectator"
	}
	return sim.OrderValidity(r).String()
}

// RejectionSize is the size of a Rejection message.
const RejectionSize = 11

// Rejection tells a client that one of its orders was refused at Tick.
type Rejection struct {
	Tick   uint64
	Reason RejectReason
	Kind   protocol.OrderKind
}

// AppendRejection appends r.
func AppendRejection(b []byte, r Rejection) []byte {
	b = append(b, TypeRejection)
	b = binary.LittleEndian.AppendUint64(b, r.Tick)
	return append(b, byte(r.Reason), byte(r.Kind))
}

// ParseRejection decodes a Rejection.
func ParseRejection(b []byte) (Rejection, error) {
	if len(b) != RejectionSize {
		return Rejection{}, ErrTruncated
	}
	if b[0] != TypeRejection {
		return Rejection{}, fmt.Errorf("%w: 0x%02x", ErrMessageType, b[0])
	}
	return Rejection{Tick: binary.LittleEndian.Uint64(b[1:]), Reason: RejectReason(b[9]), Kind: protocol.OrderKind(b[10])}, nil
}

// AppendOrders appends an Orders message: the type byte and one packet of
// the native TLV order codec.
func AppendOrders(b []byte, packet []byte) []byte {
	return append(append(b, TypeOrders), packet...)
}
