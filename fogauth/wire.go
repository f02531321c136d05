package fogauth

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/protocol"
)

// Message types: the first byte of every fog-authoritative message, and
// the lane each travels on (fogserver's lanes).
const (
	TypeStateUpdate byte = 0x20 // server → client, State lane: unreliable (may be lost, reordered, duplicated)
	TypeOrders      byte = 0x21 // client → server, Orders lane: reliable-ordered
	TypeAck         byte = 0x22 // client → server, Control lane: unreliable-sequenced
	TypeRejection   byte = 0x23 // server → client, Orders lane: reliable-ordered
)

// Delta types of a StateUpdate.
const (
	DeltaEnter  byte = 0x01
	DeltaUpdate byte = 0x02
	DeltaLeave  byte = 0x03
)

// Sizes of the seed's wire format in bytes.
const (
	HeaderSize       = 13 // StateUpdate header
	EnterSize        = 31 // EntityEnter
	UpdateHeaderSize = 7  // EntityUpdate before its fields
	LeaveSize        = 5  // EntityLeave
	MaxUpdateSize    = 35 // EntityUpdate with every field
)

// FieldMask selects the fields an EntityUpdate carries, in bit order.
type FieldMask uint16

// Field bits of EntityUpdate.
const (
	FieldPosition   FieldMask = 1 << iota // 12 bytes: x, y, z i32
	FieldHealth                           // 2 bytes u16
	FieldFacing                           // 4 bytes i32
	FieldTarget                           // 4 bytes u32, 0 = none
	FieldStateFlags                       // 2 bytes u16
	FieldCargo                            // 1 byte
	FieldAnimation                        // 1 byte
	FieldVeterancy                        // 1 byte
	FieldOwner                            // 1 byte
	// FieldsKnown is every defined bit; bits 9-15 are reserved.
	FieldsKnown FieldMask = 1<<9 - 1
)

// fieldSizes is the payload size of each field bit.
var fieldSizes = [9]int{12, 2, 4, 4, 2, 1, 1, 1, 1}

// maskSizes[m] is the payload size of the fields of mask m.
var maskSizes = func() (t [FieldsKnown + 1]uint8) {
	for m := range t {
		for i, s := range fieldSizes {
			if m&(1<<i) != 0 {
				t[m] += uint8(s)
			}
		}
	}
	return t
}()

// Size is the payload size of the fields in m (reserved bits excluded).
func (m FieldMask) Size() int { return int(maskSizes[m&FieldsKnown]) }

// Errors of the decoders. Test with errors.Is.
var (
	ErrTruncated     = errors.New("fogauth: message truncated")
	ErrMessageType   = errors.New("fogauth: unexpected message type")
	ErrDeltaType     = errors.New("fogauth: unknown delta type")
	ErrReservedField = errors.New("fogauth: reserved field bits set")
	ErrTrailing      = errors.New("fogauth: bytes after the last delta")
	ErrValue         = errors.New("fogauth: value out of range")
)

// Delta is one entity change of a StateUpdate. Entity.ID names the entity;
// which other fields are meaningful depends on Kind: every field of the
// EntityEnter layout for DeltaEnter, the fields of Mask for DeltaUpdate,
// none for DeltaLeave.
type Delta struct {
	Kind   byte
	Mask   FieldMask
	Entity protocol.EntityState
}

// Size is the delta's size on the wire.
func (d *Delta) Size() int {
	switch d.Kind {
	case DeltaEnter:
		return EnterSize
	case DeltaUpdate:
		return UpdateHeaderSize + d.Mask.Size()
	}
	return LeaveSize
}

// AppendStateUpdateHeader appends the 13-byte StateUpdate header.
func AppendStateUpdateHeader(b []byte, tick uint64, player protocol.PlayerID, count uint16) []byte {
	b = append(b, TypeStateUpdate)
	b = binary.LittleEndian.AppendUint64(b, tick)
	b = binary.LittleEndian.AppendUint16(b, uint16(player))
	return binary.LittleEndian.AppendUint16(b, count)
}

// AppendDelta appends d in the seed's layout. An Enter's owner must fit a
// byte (MaxPlayers does).
func AppendDelta(b []byte, d *Delta) []byte {
	e := &d.Entity
	b = append(b, d.Kind)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.ID))
	switch d.Kind {
	case DeltaEnter:
		b = binary.LittleEndian.AppendUint16(b, uint16(e.Type))
		b = append(b, byte(e.Owner))
		b = appendPos(b, e.Pos)
		b = binary.LittleEndian.AppendUint16(b, e.Health)
		b = binary.LittleEndian.AppendUint16(b, e.HealthMax)
		b = binary.LittleEndian.AppendUint32(b, uint32(e.Facing))
		b = binary.LittleEndian.AppendUint16(b, uint16(e.Flags))
		b = append(b, byte(e.Anim))
	case DeltaUpdate:
		b = binary.LittleEndian.AppendUint16(b, uint16(d.Mask))
		b = appendFields(b, d.Mask, e)
	}
	return b
}

func appendPos(b []byte, p protocol.WorldPos) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(p.X))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.Y))
	return binary.LittleEndian.AppendUint32(b, uint32(p.Z))
}

func appendFields(b []byte, m FieldMask, e *protocol.EntityState) []byte {
	if m&FieldPosition != 0 {
		b = appendPos(b, e.Pos)
	}
	if m&FieldHealth != 0 {
		b = binary.LittleEndian.AppendUint16(b, e.Health)
	}
	if m&FieldFacing != 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(e.Facing))
	}
	if m&FieldTarget != 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(e.Target))
	}
	if m&FieldStateFlags != 0 {
		b = binary.LittleEndian.AppendUint16(b, uint16(e.Flags))
	}
	if m&FieldCargo != 0 {
		b = append(b, e.Cargo)
	}
	if m&FieldAnimation != 0 {
		b = append(b, byte(e.Anim))
	}
	if m&FieldVeterancy != 0 {
		b = append(b, e.Veterancy)
	}
	if m&FieldOwner != 0 {
		b = append(b, byte(e.Owner))
	}
	return b
}

// StateUpdate is a decoded StateUpdate message.
type StateUpdate struct {
	Tick   uint64
	Player protocol.PlayerID // the recipient
	Deltas []Delta
}

// ParseStateUpdate decodes a StateUpdate, reusing dst's storage for the
// deltas. It validates the whole message before returning it: a reserved
// field bit, an unknown delta type, a short message or bytes after the
// last delta are errors. The deltas slice is sized only after the count is
// checked against the bytes present (every delta takes at least LeaveSize
// bytes), so a hostile count cannot make it allocate more than one Delta
// per LeaveSize bytes of input.
func ParseStateUpdate(b []byte, dst []Delta) (StateUpdate, error) {
	if len(b) < HeaderSize {
		return StateUpdate{}, ErrTruncated
	}
	if b[0] != TypeStateUpdate {
		return StateUpdate{}, fmt.Errorf("%w: 0x%02x", ErrMessageType, b[0])
	}
	u := StateUpdate{
		Tick:   binary.LittleEndian.Uint64(b[1:]),
		Player: protocol.PlayerID(binary.LittleEndian.Uint16(b[9:])),
	}
	count := int(binary.LittleEndian.Uint16(b[11:]))
	rest := b[HeaderSize:]
	if count > len(rest)/LeaveSize {
		return StateUpdate{}, ErrTruncated
	}
	if cap(dst) < count {
		dst = make([]Delta, 0, count)
	}
	dst = dst[:0]
	for range count {
		var d Delta
		n, err := parseDelta(rest, &d)
		if err != nil {
			return StateUpdate{}, fmt.Errorf("%w at byte %d", err, len(b)-len(rest))
		}
		rest = rest[n:]
		dst = append(dst, d)
	}
	if len(rest) != 0 {
		return StateUpdate{}, ErrTrailing
	}
	u.Deltas = dst
	return u, nil
}

// parseDelta decodes one delta at the start of b and returns its size.
func parseDelta(b []byte, d *Delta) (int, error) {
	if len(b) < LeaveSize {
		return 0, ErrTruncated
	}
	d.Kind = b[0]
	e := &d.Entity
	e.ID = protocol.EntityID(binary.LittleEndian.Uint32(b[1:]))
	switch d.Kind {
	case DeltaLeave:
		return LeaveSize, nil
	case DeltaEnter:
		if len(b) < EnterSize {
			return 0, ErrTruncated
		}
		e.Type = protocol.EntityType(binary.LittleEndian.Uint16(b[5:]))
		e.Owner = protocol.PlayerID(b[7])
		e.Pos = parsePos(b[8:])
		e.Health = binary.LittleEndian.Uint16(b[20:])
		e.HealthMax = binary.LittleEndian.Uint16(b[22:])
		e.Facing = protocol.WAngle(int32(binary.LittleEndian.Uint32(b[24:])))
		e.Flags = protocol.StateFlags(binary.LittleEndian.Uint16(b[28:]))
		e.Anim = protocol.AnimState(b[30])
		return EnterSize, nil
	case DeltaUpdate:
		if len(b) < UpdateHeaderSize {
			return 0, ErrTruncated
		}
		d.Mask = FieldMask(binary.LittleEndian.Uint16(b[5:]))
		if d.Mask&^FieldsKnown != 0 {
			return 0, ErrReservedField
		}
		n := UpdateHeaderSize + d.Mask.Size()
		if len(b) < n {
			return 0, ErrTruncated
		}
		parseFields(b[UpdateHeaderSize:n], d.Mask, e)
		return n, nil
	}
	return 0, fmt.Errorf("%w: 0x%02x", ErrDeltaType, d.Kind)
}

func parsePos(b []byte) protocol.WorldPos {
	return protocol.WorldPos{
		X: protocol.SimCoord(int32(binary.LittleEndian.Uint32(b))),
		Y: protocol.SimCoord(int32(binary.LittleEndian.Uint32(b[4:]))),
		Z: protocol.SimCoord(int32(binary.LittleEndian.Uint32(b[8:]))),
	}
}

// parseFields reads the fields of m from b, which holds exactly m.Size()
// bytes.
func parseFields(b []byte, m FieldMask, e *protocol.EntityState) {
	if m&FieldPosition != 0 {
		e.Pos, b = parsePos(b), b[12:]
	}
	if m&FieldHealth != 0 {
		e.Health, b = binary.LittleEndian.Uint16(b), b[2:]
	}
	if m&FieldFacing != 0 {
		e.Facing, b = protocol.WAngle(int32(binary.LittleEndian.Uint32(b))), b[4:]
	}
	if m&FieldTarget != 0 {
		e.Target, b = protocol.EntityID(binary.LittleEndian.Uint32(b)), b[4:]
	}
	if m&FieldStateFlags != 0 {
		e.Flags, b = protocol.StateFlags(binary.LittleEndian.Uint16(b)), b[2:]
	}
	if m&FieldCargo != 0 {
		e.Cargo, b = b[0], b[1:]
	}
	if m&FieldAnimation != 0 {
		e.Anim, b = protocol.AnimState(b[0]), b[1:]
	}
	if m&FieldVeterancy != 0 {
		e.Veterancy, b = b[0], b[1:]
	}
	if m&FieldOwner != 0 {
		e.Owner = protocol.PlayerID(b[0])
	}
}

// Diff is the mask of Update fields in which a and b differ.
func Diff(a, b *protocol.EntityState) FieldMask {
	var m FieldMask
	if a.Pos != b.Pos {
		m |= FieldPosition
	}
	if a.Health != b.Health {
		m |= FieldHealth
	}
	if a.Facing != b.Facing {
		m |= FieldFacing
	}
	if a.Target != b.Target {
		m |= FieldTarget
	}
	if a.Flags != b.Flags {
		m |= FieldStateFlags
	}
	if a.Cargo != b.Cargo {
		m |= FieldCargo
	}
	if a.Anim != b.Anim {
		m |= FieldAnimation
	}
	if a.Veterancy != b.Veterancy {
		m |= FieldVeterancy
	}
	if a.Owner != b.Owner {
		m |= FieldOwner
	}
	return m
}

// CopyFields copies the fields of m from src to dst.
func CopyFields(dst, src *protocol.EntityState, m FieldMask) {
	if m&FieldPosition != 0 {
		dst.Pos = src.Pos
	}
	if m&FieldHealth != 0 {
		dst.Health = src.Health
	}
	if m&FieldFacing != 0 {
		dst.Facing = src.Facing
	}
	if m&FieldTarget != 0 {
		dst.Target = src.Target
	}
	if m&FieldStateFlags != 0 {
		dst.Flags = src.Flags
	}
	if m&FieldCargo != 0 {
		dst.Cargo = src.Cargo
	}
	if m&FieldAnimation != 0 {
		dst.Anim = src.Anim
	}
	if m&FieldVeterancy != 0 {
		dst.Veterancy = src.Veterancy
	}
	if m&FieldOwner != 0 {
		dst.Owner = src.Owner
	}
}

// EnterState is what a client knows of e after an EntityEnter: the Enter
// layout lacks target, cargo and veterancy, which read as zero until an
// Update carries them.
func EnterState(e *protocol.EntityState) protocol.EntityState {
	s := *e
	s.Target, s.Cargo, s.Veterancy = 0, 0, 0
	return s
}
