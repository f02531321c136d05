package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Hello starts a client's session in a room (server to client,
// LaneReliable): who it is and the room's clock. The first snapshot the
// client receives after it is full.
//
//	type 0xC00060 | player u8 | tick rate u16 | server tick uvarint | server time µs uvarint
type Hello struct {
	Player       PlayerID
	TickRate     uint16
	ServerTick   uint64
	ServerTimeUs uint64
}

// Append appends the encoded message to dst.
func (m *Hello) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypeHello).U8(uint8(m.Player)).U16(m.TickRate).Uvarint(m.ServerTick).Uvarint(m.ServerTimeUs)
	return build(&b)
}

// Parse decodes b into m.
func (m *Hello) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeHello); err != nil {
		return err
	}
	m.Player, m.TickRate = PlayerID(r.U8()), r.U16()
	m.ServerTick, m.ServerTimeUs = r.Uvarint(), r.Uvarint()
	if r.Err() == nil && (m.Player == 0 || m.TickRate == 0 || m.TickRate > 1000) {
		return fmt.Errorf("%w: hello player %d tick rate %d", ErrMalformed, m.Player, m.TickRate)
	}
	return finish(TypeHello, &r)
}

// Ping asks the server for its clock (client to server, LaneSequenced).
//
//	type 0xC00061 | client time µs uvarint
type Ping struct{ ClientTimeUs uint64 }

// Append appends the encoded message to dst.
func (m *Ping) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypePing).Uvarint(m.ClientTimeUs)
	return build(&b)
}

// Parse decodes b into m.
func (m *Ping) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypePing); err != nil {
		return err
	}
	m.ClientTimeUs = r.Uvarint()
	return finish(TypePing, &r)
}

// Pong answers a Ping (server to client, LaneSequenced) with the server's
// clock at the moment it answered: its time and the tick it was on, from
// which the client estimates RTT and the server tick.
//
//	type 0xC00062 | client time µs uvarint (echoed) | server time µs uvarint | server tick uvarint
type Pong struct {
	ClientTimeUs uint64
	ServerTimeUs uint64
	ServerTick   uint64
}

// Append appends the encoded message to dst.
func (m *Pong) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypePong).Uvarint(m.ClientTimeUs).Uvarint(m.ServerTimeUs).Uvarint(m.ServerTick)
	return build(&b)
}

// Parse decodes b into m.
func (m *Pong) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypePong); err != nil {
		return err
	}
	m.ClientTimeUs, m.ServerTimeUs, m.ServerTick = r.Uvarint(), r.Uvarint(), r.Uvarint()
	return finish(TypePong, &r)
}
