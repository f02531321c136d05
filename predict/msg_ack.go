package predict

import "github.com/tickwire/tickwire/wire"

// InputAck tells a client the server applied one of its inputs (server to
// client, LaneSequenced).
//
//	type 0x31 | player u8 | input sequence uvarint | applied server tick uvarint
//	| server time µs uvarint | late u8 (0 or 1)
//
// The seed's serverTimeMs is kept in microseconds, the unit of every
// tickwire clock; Late says the input arrived after its intended tick and
// was applied at the next free one.
type InputAck struct {
	Player       PlayerID
	Sequence     uint32
	AppliedTick  uint64
	ServerTimeUs uint64
	Late         bool
}

// Append appends the encoded message to dst.
func (m *InputAck) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypeInputAck).U8(uint8(m.Player)).Uvarint(uint64(m.Sequence)).
		Uvarint(m.AppliedTick).Uvarint(m.ServerTimeUs).Bool(m.Late)
	return build(&b)
}

// Parse decodes b into m.
func (m *InputAck) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeInputAck); err != nil {
		return err
	}
	m.Player = PlayerID(r.U8())
	m.Sequence = uint32(min(r.Uvarint(), 1<<32-1))
	m.AppliedTick, m.ServerTimeUs, m.Late = r.Uvarint(), r.Uvarint(), r.Bool()
	return finish(TypeInputAck, &r)
}
