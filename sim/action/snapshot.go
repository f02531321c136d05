package action

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
)

const (
	snapshotMagic   = "TWA1"
	snapshotVersion = 1
	// HeaderSize is the size of a snapshot's world record.
	HeaderSize = 45
	// EntityRecordSize is the size of one encoded Entity.
	EntityRecordSize = 49
)

var le = binary.LittleEndian

// AppendEntity appends e's EntityRecordSize-byte record to dst.
func AppendEntity(dst []byte, e *Entity) []byte {
	dst = le.AppendUint32(dst, uint32(e.ID))
	dst = append(dst, byte(e.Kind), byte(e.Owner))
	for _, v := range [6]Fixed{e.Pos.X, e.Pos.Y, e.Pos.Z, e.Vel.X, e.Vel.Y, e.Vel.Z} {
		dst = le.AppendUint32(dst, uint32(v))
	}
	for _, v := range [6]uint16{e.Yaw, uint16(e.Pitch), uint16(e.Health), uint16(e.Mana), e.Timer, e.Respawn} {
		dst = le.AppendUint16(dst, v)
	}
	dst = append(dst, byte(e.IntentX), byte(e.IntentY), e.Flags)
	return le.AppendUint32(dst, e.ActionSeq)
}

// ParseEntity decodes one record; b must hold at least EntityRecordSize
// bytes. It checks what can be checked without the world's rules: the kind,
// the flags and the intent range.
func ParseEntity(b []byte) (Entity, error) {
	if len(b) < EntityRecordSize {
		return Entity{}, fmt.Errorf("%w: short entity record", ErrInvalidSnapshot)
	}
	f := func(off int) Fixed { return Fixed(le.Uint32(b[off:])) }
	u := func(off int) uint16 { return le.Uint16(b[off:]) }
	e := Entity{
		ID: EntityID(le.Uint32(b)), Kind: Kind(b[4]), Owner: PlayerID(b[5]),
		Pos: Vec3{f(6), f(10), f(14)}, Vel: Vec3{f(18), f(22), f(26)},
		Yaw: u(30), Pitch: int16(u(32)), Health: int16(u(34)), Mana: int16(u(36)),
		Timer: u(38), Respawn: u(40),
		IntentX: int8(b[42]), IntentY: int8(b[43]), Flags: b[44],
		ActionSeq: le.Uint32(b[45:]),
	}
	switch {
	case e.Kind != KindPlayer && e.Kind != KindProjectile:
		return e, fmt.Errorf("%w: entity %d kind %d", ErrInvalidSnapshot, e.ID, e.Kind)
	case e.Owner == 0:
		return e, fmt.Errorf("%w: entity %d has no owner", ErrInvalidSnapshot, e.ID)
	case e.Flags&^flagsKnown != 0:
		return e, fmt.Errorf("%w: entity %d flags %#x", ErrInvalidSnapshot, e.ID, e.Flags)
	case e.IntentX == -128 || e.IntentY == -128:
		return e, fmt.Errorf("%w: entity %d intent", ErrInvalidSnapshot, e.ID)
	}
	return e, nil
}

// Snapshot appends the whole state to dst: a HeaderSize world record, then
// EntityRecordSize records in ascending id order (see the package
// documentation). Equal states give equal bytes.
func (w *World) Snapshot(dst []byte) []byte {
	dst = append(dst, snapshotMagic...)
	dst = append(dst, snapshotVersion)
	dst = le.AppendUint64(dst, w.r.hash)
	dst = le.AppendUint64(dst, w.seed)
	dst = le.AppendUint64(dst, w.tick)
	dst = le.AppendUint64(dst, w.rng.S)
	dst = le.AppendUint32(dst, uint32(w.nextID))
	dst = le.AppendUint32(dst, uint32(len(w.entities)))
	for i := range w.entities {
		dst = AppendEntity(dst, &w.entities[i])
	}
	return dst
}

// StateHash is the xxHash64 of the snapshot: equal hashes mean equal
// states, for desync checks and golden tests.
func (w *World) StateHash() uint64 {
	w.scratch = w.Snapshot(w.scratch[:0])
	return xxhash.Sum64(w.scratch)
}

// Restore replaces the state with a snapshot taken by a world of the same
// Config. It validates the whole snapshot first and leaves the world
// untouched on error; it never panics.
func (w *World) Restore(b []byte) error {
	if len(b) < HeaderSize || string(b[:4]) != snapshotMagic || b[4] != snapshotVersion {
		return fmt.Errorf("%w: bad header", ErrInvalidSnapshot)
	}
	if h := le.Uint64(b[5:]); h != w.r.hash {
		return fmt.Errorf("%w: rules hash %016x, want %016x", ErrInvalidSnapshot, h, w.r.hash)
	}
	n := int(le.Uint32(b[41:]))
	if (len(b)-HeaderSize)/EntityRecordSize != n || (len(b)-HeaderSize)%EntityRecordSize != 0 {
		return fmt.Errorf("%w: %d bytes for %d entities", ErrInvalidSnapshot, len(b)-HeaderSize, n)
	}
	nextID := EntityID(le.Uint32(b[37:]))
	ents := make([]Entity, 0, n)
	var players [256]bool
	for i := range n {
		e, err := ParseEntity(b[HeaderSize+i*EntityRecordSize:])
		if err != nil {
			return err
		}
		switch {
		case int(e.Owner) > w.r.MaxPlayers:
			return fmt.Errorf("%w: entity %d owner %d", ErrInvalidSnapshot, e.ID, e.Owner)
		case i > 0 && e.ID <= ents[i-1].ID:
			return fmt.Errorf("%w: entity ids out of order at %d", ErrInvalidSnapshot, e.ID)
		case e.ID >= nextID || e.ID == 0:
			return fmt.Errorf("%w: entity id %d (next %d)", ErrInvalidSnapshot, e.ID, nextID)
		case e.Kind == KindPlayer && players[e.Owner]:
			return fmt.Errorf("%w: player %d twice", ErrInvalidSnapshot, e.Owner)
		}
		players[e.Owner] = players[e.Owner] || e.Kind == KindPlayer
		ents = append(ents, e)
	}
	w.seed = le.Uint64(b[13:])
	w.tick = le.Uint64(b[21:])
	w.rng.S = le.Uint64(b[29:])
	w.nextID = nextID
	w.entities = append(w.entities[:0], ents...)
	return nil
}
