package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// InputMessage is a client's batch of inputs (client to server,
// LaneReliable). It also carries the newest snapshot the client holds,
// which the server uses as the baseline of its deltas.
//
//	type 0x30 | player u8 | acked snapshot tick uvarint
//	| inputs: count uvarint, each:
//	    sequence uvarint | client tick uvarint | intended server tick uvarint
//	    | timestamp ms varint | move x i8 | move y i8 | flags u8 (1 jump, 2 sprint)
//	    | yaw u16 | pitch i16 | actions: count uvarint, each:
//	        id u8 | sequence uvarint | started at client tick uvarint | params bytes
type InputMessage struct {
	Player    PlayerID
	AckedSnap uint64
	Inputs    []Input
}

const (
	inputJump   = 1
	inputSprint = 2
)

// Append appends the encoded message to dst.
func (m *InputMessage) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypeInput).U8(uint8(m.Player)).Uvarint(m.AckedSnap)
	b.ArrayHeader(uint32(len(m.Inputs)))
	for i := range m.Inputs {
		in := &m.Inputs[i]
		flags := uint8(0)
		if in.Jump {
			flags |= inputJump
		}
		if in.Sprint {
			flags |= inputSprint
		}
		b.Elem().Uvarint(uint64(in.Sequence)).Uvarint(in.ClientTick).Uvarint(in.IntendedTick).Varint(in.TimestampMs)
		b.I8(in.MoveX).I8(in.MoveY).U8(flags).U16(in.Yaw).I16(in.Pitch)
		b.ArrayHeader(uint32(len(in.Actions)))
		for _, a := range in.Actions {
			b.Elem().U8(a.ID).Uvarint(uint64(a.Sequence)).Uvarint(a.StartedAtClientTick).Bytes(a.Params)
		}
	}
	return build(&b)
}

// Parse decodes b into m, reusing m's slices. Action parameters alias b.
func (m *InputMessage) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeInput); err != nil {
		return err
	}
	m.Player = PlayerID(r.U8())
	m.AckedSnap = r.Uvarint()
	n := r.ArrayHeader()
	if n > MaxInputsPerMessage {
		return fmt.Errorf("%w: %d inputs in one message", ErrMalformed, n)
	}
	m.Inputs = m.Inputs[:0]
	for range n {
		m.Inputs = append(m.Inputs, Input{})
		in := &m.Inputs[len(m.Inputs)-1]
		seq := r.Uvarint()
		in.ClientTick, in.IntendedTick, in.TimestampMs = r.Uvarint(), r.Uvarint(), r.Varint()
		in.MoveX, in.MoveY = r.I8(), r.I8()
		flags := r.U8()
		in.Yaw, in.Pitch = r.U16(), r.I16()
		if seq == 0 || seq > 1<<32-1 || flags&^(inputJump|inputSprint) != 0 {
			return fmt.Errorf("%w: input sequence %d flags %#x", ErrMalformed, seq, flags)
		}
		in.Sequence, in.Jump, in.Sprint = uint32(seq), flags&inputJump != 0, flags&inputSprint != 0
		na := r.ArrayHeader()
		if na > MaxActionsPerInput {
			return fmt.Errorf("%w: %d actions in one input", ErrMalformed, na)
		}
		for range na {
			a := Action{ID: r.U8()}
			seq := r.Uvarint()
			a.StartedAtClientTick, a.Params = r.Uvarint(), r.Bytes()
			if seq == 0 || seq > 1<<32-1 || len(a.Params) > MaxActionParams {
				return fmt.Errorf("%w: action sequence %d, %d bytes of parameters", ErrMalformed, seq, len(a.Params))
			}
			a.Sequence = uint32(seq)
			in.Actions = append(in.Actions, a)
		}
		if r.Err() != nil {
			break
		}
	}
	return finish(TypeInput, &r)
}
