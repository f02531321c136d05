package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Event is a GameEvent as the server publishes it: a monotonic id (1, 2,
// 3, ... per room), the tick it happened on, and the input sequence that
// caused it, so a client can deduplicate it against what it predicted.
type Event struct {
	ID       uint64
	Tick     uint64
	InputSeq uint32
	GameEvent
}

// EventMessage carries one event (server to client, LaneReliable).
//
//	type 0x8050 | event
//	event = id uvarint | server tick uvarint | kind u8 | type u8 | player u8
//	        | input sequence uvarint | action sequence uvarint
//	        | entity varint | target varint | value varint
type EventMessage struct{ Event }

func appendEvent(b *wire.Builder, e *Event) {
	b.Uvarint(e.ID).Uvarint(e.Tick).U8(uint8(e.Kind)).U8(e.Type).U8(uint8(e.Player))
	b.Uvarint(uint64(e.InputSeq)).Uvarint(uint64(e.ActionSeq))
	b.Varint(int64(e.Entity)).Varint(int64(e.Target)).Varint(int64(e.Value))
}

func readEvent(r *wire.Reader, e *Event) error {
	e.ID, e.Tick = r.Uvarint(), r.Uvarint()
	e.Kind, e.Type, e.Player = EventKind(r.U8()), r.U8(), PlayerID(r.U8())
	in, act := r.Uvarint(), r.Uvarint()
	ent, tgt, val := r.Varint(), r.Varint(), r.Varint()
	if r.Err() != nil {
		return r.Err()
	}
	if e.Kind > EventDespawn || in > 1<<32-1 || act > 1<<32-1 || !fits32(ent) || !fits32(tgt) || !fits32(val) {
		return fmt.Errorf("%w: event %d fields out of range", ErrMalformed, e.ID)
	}
	e.InputSeq, e.ActionSeq = uint32(in), uint32(act)
	e.Entity, e.Target, e.Value = EntityID(ent), EntityID(tgt), int32(val)
	return nil
}

func fits32(v int64) bool { return v >= -1<<31 && v < 1<<31 }

// Append appends the encoded message to dst.
func (m *EventMessage) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	appendEvent(newBuilder(&b, dst, TypeEvent), &m.Event)
	return build(&b)
}

// Parse decodes b into m.
func (m *EventMessage) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeEvent); err != nil {
		return err
	}
	if err := readEvent(&r, &m.Event); err != nil {
		return malformed(TypeEvent, err)
	}
	return finish(TypeEvent, &r)
}
