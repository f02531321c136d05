package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Hello starts a client's session in a room (server to client,
// LaneReliable): who it is, the room's clock and the parameters a client
// must share with the server rather than configure: the tick rate (the
// game's rules depend on it), the snapshot interval, the baseline window
// (how many of the snapshots sent the server keeps as delta baselines;
// the client keeps at least as many) and MaxAhead (how far ahead of the
// server an input may be scheduled). The first snapshot the client
// receives after it is full.
//
//	type 0xC00060 | player u8 | tick rate u16 | snapshot every uvarint | baseline window uvarint
//	| max ahead uvarint | server tick uvarint | server time µs uvarint
type Hello struct {
	Player         PlayerID
	TickRate       uint16
	SnapshotEvery  uint16
	BaselineWindow uint16
	MaxAhead       uint16
	ServerTick     uint64
	ServerTimeUs   uint64
}

// Limits a Hello's parameters must respect.
const (
	MaxTickRate       = 1000
	MaxBaselineWindow = 1024
)

// Append appends the encoded message to dst.
func (m *Hello) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypeHello).U8(uint8(m.Player)).U16(m.TickRate).Uvarint(uint64(m.SnapshotEvery)).
		Uvarint(uint64(m.BaselineWindow)).Uvarint(uint64(m.MaxAhead)).Uvarint(m.ServerTick).Uvarint(m.ServerTimeUs)
	return build(&b)
}

// Parse decodes b into m.
func (m *Hello) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeHello); err != nil {
		return err
	}
	m.Player, m.TickRate = PlayerID(r.U8()), r.U16()
	every, window, ahead := r.Uvarint(), r.Uvarint(), r.Uvarint()
	m.ServerTick, m.ServerTimeUs = r.Uvarint(), r.Uvarint()
	if r.Err() == nil && (m.Player == 0 || m.TickRate == 0 || m.TickRate > MaxTickRate || every == 0 || every > MaxTickRate ||
		window == 0 || window > MaxBaselineWindow || ahead == 0 || ahead > 1<<16-1) {
		return fmt.Errorf("%w: hello player %d tick rate %d snapshot every %d window %d max ahead %d",
			ErrMalformed, m.Player, m.TickRate, every, window, ahead)
	}
	m.SnapshotEvery, m.BaselineWindow, m.MaxAhead = uint16(every), uint16(window), uint16(ahead)
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
