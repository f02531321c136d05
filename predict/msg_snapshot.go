package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// AckedInput is the newest input sequence the server applied for a player.
type AckedInput struct {
	Player   PlayerID
	Sequence uint32
}

// SnapshotMessage is the authoritative state after ServerTick (server to
// client, LaneUnreliable). A full snapshot (BaselineTick 0) carries every
// entity record; a delta carries the header, the records that differ from
// the snapshot of BaselineTick (one the client acknowledged holding) and
// the ids of entities gone since. The game's header holds the RNG state
// (the seed's rngState) and its records the entities, transient colliders
// included (the seed's transientColliders are projectile entities here).
//
//	type 0x32 | server tick uvarint | server time µs uvarint | baseline tick uvarint
//	| late tick uvarint | clamped tick uvarint | interacted tick uvarint
//	| acked inputs: count uvarint, each player u8 | sequence uvarint
//	| events: count uvarint, each event (see EventMessage)
//	| header bytes | removed: count uvarint, each id varint
//	| records: count uvarint, each id varint | data bytes
//
// LateTick is the last tick at which an input of the receiver was applied
// late (or dropped as late), ClampedTick the last tick an input of the
// receiver clamped to MaxAhead was applied at, and InteractedTick the last tick an event of another player
// targeted the receiver's entity: with them a client tells a correction
// caused by its own late input from one caused by another player.
type SnapshotMessage struct {
	ServerTick     uint64
	ServerTimeUs   uint64
	BaselineTick   uint64
	LateTick       uint64
	ClampedTick    uint64
	InteractedTick uint64
	Acked          []AckedInput
	Events         []Event
	Header         []byte
	Removed        []EntityID
	Records        []Record
}

// Append appends the encoded message to dst.
func (m *SnapshotMessage) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypeSnapshot).Uvarint(m.ServerTick).Uvarint(m.ServerTimeUs).Uvarint(m.BaselineTick).
		Uvarint(m.LateTick).Uvarint(m.ClampedTick).Uvarint(m.InteractedTick)
	b.ArrayHeader(uint32(len(m.Acked)))
	for _, a := range m.Acked {
		b.Elem().U8(uint8(a.Player)).Uvarint(uint64(a.Sequence))
	}
	b.ArrayHeader(uint32(len(m.Events)))
	for i := range m.Events {
		appendEvent(b.Elem(), &m.Events[i])
	}
	b.Bytes(m.Header)
	b.ArrayHeader(uint32(len(m.Removed)))
	for _, id := range m.Removed {
		b.Elem().Varint(int64(id))
	}
	b.ArrayHeader(uint32(len(m.Records)))
	for _, rec := range m.Records {
		b.Elem().Varint(int64(rec.ID)).Bytes(rec.Data)
	}
	return build(&b)
}

// Parse decodes b into m, reusing m's slices. Header and record data
// alias b.
func (m *SnapshotMessage) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeSnapshot); err != nil {
		return err
	}
	m.ServerTick, m.ServerTimeUs, m.BaselineTick = r.Uvarint(), r.Uvarint(), r.Uvarint()
	m.LateTick, m.ClampedTick, m.InteractedTick = r.Uvarint(), r.Uvarint(), r.Uvarint()
	if r.Err() == nil && (m.LateTick > m.ServerTick || m.ClampedTick > m.ServerTick || m.InteractedTick > m.ServerTick) {
		return fmt.Errorf("%w: snapshot of tick %d names a later tick", ErrMalformed, m.ServerTick)
	}
	m.Acked = m.Acked[:0]
	for range r.ArrayHeader() {
		p, seq := PlayerID(r.U8()), r.Uvarint()
		if seq > 1<<32-1 {
			return fmt.Errorf("%w: acked sequence %d", ErrMalformed, seq)
		}
		m.Acked = append(m.Acked, AckedInput{Player: p, Sequence: uint32(seq)})
	}
	m.Events = m.Events[:0]
	for range r.ArrayHeader() {
		m.Events = append(m.Events, Event{})
		if err := readEvent(&r, &m.Events[len(m.Events)-1]); err != nil {
			return malformed(TypeSnapshot, err)
		}
	}
	m.Header = r.Bytes()
	m.Removed = m.Removed[:0]
	for range r.ArrayHeader() {
		id := r.Varint()
		if !fits32(id) {
			return fmt.Errorf("%w: removed id %d", ErrMalformed, id)
		}
		m.Removed = append(m.Removed, EntityID(id))
		if r.Err() != nil {
			break
		}
	}
	m.Records = m.Records[:0]
	for range r.ArrayHeader() {
		id := r.Varint()
		data := r.Bytes()
		if !fits32(id) {
			return fmt.Errorf("%w: record id %d", ErrMalformed, id)
		}
		m.Records = append(m.Records, Record{ID: EntityID(id), Data: data})
		if r.Err() != nil {
			break
		}
	}
	if r.Err() == nil && m.BaselineTick >= m.ServerTick && m.BaselineTick != 0 {
		return fmt.Errorf("%w: baseline %d not before tick %d", ErrMalformed, m.BaselineTick, m.ServerTick)
	}
	return finish(TypeSnapshot, &r)
}
