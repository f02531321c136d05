package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// InputAck tells a client the server applied one of its inputs (server to
// client, LaneSequenced).
//
//	type 0x31 | player u8 | input sequence uvarint | applied server tick uvarint
//	| server time µs uvarint | flags u8 (1 late, 2 clamped)
//
// The seed's serverTimeMs is kept in microseconds, the unit of every
// tickwire clock. Late says the input arrived after its intended tick and
// was applied at the next free one; Clamped that it was scheduled beyond
// the server's MaxAhead and brought back to it (applied earlier than the
// client predicted it).
type InputAck struct {
	Player       PlayerID
	Sequence     uint32
	AppliedTick  uint64
	ServerTimeUs uint64
	Late         bool
	Clamped      bool
}

// InputAck flags.
const (
	ackLate    = 1
	ackClamped = 2
)

// Append appends the encoded message to dst.
func (m *InputAck) Append(dst []byte) ([]byte, error) {
	var flags uint8
	if m.Late {
		flags |= ackLate
	}
	if m.Clamped {
		flags |= ackClamped
	}
	var b wire.Builder
	newBuilder(&b, dst, TypeInputAck).U8(uint8(m.Player)).Uvarint(uint64(m.Sequence)).
		Uvarint(m.AppliedTick).Uvarint(m.ServerTimeUs).U8(flags)
	return build(&b)
}

// Parse decodes b into m. A sequence beyond 32 bits or an unknown flag is
// refused, never clamped.
func (m *InputAck) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeInputAck); err != nil {
		return err
	}
	m.Player = PlayerID(r.U8())
	seq := r.Uvarint()
	m.AppliedTick, m.ServerTimeUs = r.Uvarint(), r.Uvarint()
	flags := r.U8()
	if r.Err() == nil && (seq > 1<<32-1 || flags&^(ackLate|ackClamped) != 0) {
		return fmt.Errorf("%w: input ack sequence %d flags %#x", ErrMalformed, seq, flags)
	}
	m.Sequence, m.Late, m.Clamped = uint32(seq), flags&ackLate != 0, flags&ackClamped != 0
	return finish(TypeInputAck, &r)
}
