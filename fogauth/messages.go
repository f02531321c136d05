package fogauth

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
	"github.com/tickwire/tickwire/protocol"
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

// RejectReason says why the server refused an order: the game's reason
// (Game.Validate, Game.Step; below 0x80), or one of the server's own
// reasons below.
type RejectReason uint8

// The server's own rejection reasons.
const (
	// RejectRate: the client sent more orders for one tick than
	// Config.MaxOrdersPerTick.
	RejectRate RejectReason = 0x80
	// RejectSpectator: spectators give no orders.
	RejectSpectator RejectReason = 0x81
	// RejectFinished: the match is over.
	RejectFinished RejectReason = 0x82
	// RejectMalformed: an Orders packet that did not decode (its orders,
	// however many, are lost; Count is the packets).
	RejectMalformed RejectReason = 0x83
	// RejectMany: orders of the tick refused for reasons beyond the first
	// few (kind 0; Count is the orders).
	RejectMany RejectReason = 0x84
)

func (r RejectReason) String() string {
	switch r {
	case RejectRate:
		return "too many orders"
	case RejectSpectator:
		return "spectator"
	case RejectFinished:
		return "match over"
	case RejectMalformed:
		return "malformed orders"
	case RejectMany:
		return "other refusals"
	}
	return fmt.Sprintf("game reason %d", uint8(r))
}

// RejectionSize is the size of a Rejection message.
const RejectionSize = 13

// Rejection tells a client that Count of its orders of one kind were
// refused for one reason at Tick (a client's refusals of a tick are
// grouped, at most four Rejections a tick).
type Rejection struct {
	Tick   uint64
	Reason RejectReason
	Kind   protocol.OrderKind
	Count  uint16
}

// AppendRejection appends r.
func AppendRejection(b []byte, r Rejection) []byte {
	b = append(b, TypeRejection)
	b = binary.LittleEndian.AppendUint64(b, r.Tick)
	b = append(b, byte(r.Reason), byte(r.Kind))
	return binary.LittleEndian.AppendUint16(b, r.Count)
}

// ParseRejection decodes a Rejection.
func ParseRejection(b []byte) (Rejection, error) {
	if len(b) != RejectionSize {
		return Rejection{}, ErrTruncated
	}
	if b[0] != TypeRejection {
		return Rejection{}, fmt.Errorf("%w: 0x%02x", ErrMessageType, b[0])
	}
	return Rejection{Tick: binary.LittleEndian.Uint64(b[1:]), Reason: RejectReason(b[9]), Kind: protocol.OrderKind(b[10]),
		Count: binary.LittleEndian.Uint16(b[11:])}, nil
}

// AppendOrders appends an Orders message: the type byte and one packet of
// the native TLV order codec.
func AppendOrders(b []byte, packet []byte) []byte {
	return append(append(b, TypeOrders), packet...)
}

// Match set-up and end messages, reliable-ordered: MatchStart and
// MatchEnd server → client, Done client → server (one type byte: the
// player has played the ticks it meant to; when every player is done the
// room finishes).
const (
	TypeMatchStart byte = 0x24
	TypeMatchEnd   byte = 0x25
	TypeDone       byte = 0x26
)

// MatchStartSize and MatchEndSize are the messages' sizes.
const (
	MatchStartSize = 16
	MatchEndSize   = 33
)

// MatchStart is the first message of a game: the public facts a client
// needs, the tick rate and the map (the reference game's generated
// scenario: players, units per player, map size and map seed).
type MatchStart struct {
	TickRate       uint16
	Players        uint8
	UnitsPerPlayer uint16
	MapSize        uint16
	MapSeed        uint64
}

// AppendMatchStart appends m.
func AppendMatchStart(b []byte, m MatchStart) []byte {
	b = append(b, TypeMatchStart)
	b = binary.LittleEndian.AppendUint16(b, m.TickRate)
	b = append(b, m.Players)
	b = binary.LittleEndian.AppendUint16(b, m.UnitsPerPlayer)
	b = binary.LittleEndian.AppendUint16(b, m.MapSize)
	return binary.LittleEndian.AppendUint64(b, m.MapSeed)
}

// ParseMatchStart decodes a MatchStart.
func ParseMatchStart(b []byte) (MatchStart, error) {
	if len(b) != MatchStartSize {
		return MatchStart{}, ErrTruncated
	}
	if b[0] != TypeMatchStart {
		return MatchStart{}, fmt.Errorf("%w: 0x%02x", ErrMessageType, b[0])
	}
	return MatchStart{
		TickRate: binary.LittleEndian.Uint16(b[1:]), Players: b[3],
		UnitsPerPlayer: binary.LittleEndian.Uint16(b[4:]), MapSize: binary.LittleEndian.Uint16(b[6:]),
		MapSeed: binary.LittleEndian.Uint64(b[8:]),
	}, nil
}

// MatchEnd closes a game once the client acknowledged its whole view of
// the final state: Entities and ViewHash (see ViewHash) describe that
// view, so the client can check its partial world against the server's
// truth. MaxStaleTicks is the longest a visible entity's change waited
// for the StateUpdate that delivered it to this client (network transit
// excluded; see ClientStats.MaxStaleTicks), and
// the last two fields are the room's server tick time and cost excluding
// the simulation, 99th percentiles in microseconds, for spectators only:
// a player's are zero (how long ticks take depends on the whole map).
type MatchEnd struct {
	Tick          uint64
	Entities      uint32
	ViewHash      uint64
	MaxStaleTicks uint32
	TickP99Us     uint32
	CostP99Us     uint32
}

// AppendMatchEnd appends m.
func AppendMatchEnd(b []byte, m MatchEnd) []byte {
	b = append(b, TypeMatchEnd)
	b = binary.LittleEndian.AppendUint64(b, m.Tick)
	b = binary.LittleEndian.AppendUint32(b, m.Entities)
	b = binary.LittleEndian.AppendUint64(b, m.ViewHash)
	b = binary.LittleEndian.AppendUint32(b, m.MaxStaleTicks)
	b = binary.LittleEndian.AppendUint32(b, m.TickP99Us)
	return binary.LittleEndian.AppendUint32(b, m.CostP99Us)
}

// ParseMatchEnd decodes a MatchEnd.
func ParseMatchEnd(b []byte) (MatchEnd, error) {
	if len(b) != MatchEndSize {
		return MatchEnd{}, ErrTruncated
	}
	if b[0] != TypeMatchEnd {
		return MatchEnd{}, fmt.Errorf("%w: 0x%02x", ErrMessageType, b[0])
	}
	le := binary.LittleEndian
	return MatchEnd{Tick: le.Uint64(b[1:]), Entities: le.Uint32(b[9:]), ViewHash: le.Uint64(b[13:]),
		MaxStaleTicks: le.Uint32(b[21:]), TickP99Us: le.Uint32(b[25:]), CostP99Us: le.Uint32(b[29:])}, nil
}

// ViewHash fingerprints a view: xxHash64 over every field of each entity,
// little endian, in the order given (ascending ID).
func ViewHash(states []protocol.EntityState) uint64 {
	d := xxhash.New()
	var b [48]byte
	for i := range states {
		e := &states[i]
		r := binary.LittleEndian.AppendUint32(b[:0], uint32(e.ID))
		r = binary.LittleEndian.AppendUint16(r, uint16(e.Type))
		r = binary.LittleEndian.AppendUint16(r, uint16(e.Owner))
		r = appendPos(r, e.Pos)
		r = binary.LittleEndian.AppendUint16(r, e.Health)
		r = binary.LittleEndian.AppendUint16(r, e.HealthMax)
		r = binary.LittleEndian.AppendUint32(r, uint32(e.Facing))
		r = binary.LittleEndian.AppendUint32(r, uint32(e.Target))
		r = binary.LittleEndian.AppendUint16(r, uint16(e.Flags))
		r = append(r, e.Cargo, byte(e.Anim), e.Veterancy)
		d.Write(r)
	}
	return d.Sum64()
}
