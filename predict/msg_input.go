package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// InputMessage is a client's batch of inputs (client to server,
// LaneSequenced): every input the server has not acknowledged, oldest
// first, so a lost message is repaired by the next. It also carries the
// newest snapshot the client holds, which the server uses as the baseline
// of its deltas. Each input is coded against the one before it (the first
// against the zero Input): consecutive inputs differ by one sequence and
// one tick and usually hold the same movement and view, so a repeated
// input takes six bytes.
//
//	type 0x30 | player u8 | acked snapshot tick uvarint
//	| inputs: count uvarint, each:
//	    sequence − previous uvarint (≥ 1) | client tick − previous varint
//	    | intended tick − client tick varint | timestamp ms − previous varint
//	    | flags u8 (1 jump, 2 sprint, 4 same movement and view as the previous input)
//	    | [move x i8 | move y i8 | yaw u16 | pitch i16]   absent with flag 4
//	    | actions: count uvarint, each:
//	        id u8 | sequence uvarint | started at client tick uvarint | params bytes
type InputMessage struct {
	Player    PlayerID
	AckedSnap uint64
	Inputs    []Input
}

const (
	inputJump   = 1
	inputSprint = 2
	inputSame   = 4
)

func sameView(a, b *Input) bool {
	return a.MoveX == b.MoveX && a.MoveY == b.MoveY && a.Yaw == b.Yaw && a.Pitch == b.Pitch
}

// Append appends the encoded message to dst. Sequences must ascend.
func (m *InputMessage) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypeInput).U8(uint8(m.Player)).Uvarint(m.AckedSnap)
	b.ArrayHeader(uint32(len(m.Inputs)))
	var prev Input
	for i := range m.Inputs {
		in := &m.Inputs[i]
		if in.Sequence <= prev.Sequence {
			return dst, fmt.Errorf("%w: input sequences do not ascend", ErrMalformed)
		}
		flags := uint8(0)
		if in.Jump {
			flags |= inputJump
		}
		if in.Sprint {
			flags |= inputSprint
		}
		same := sameView(in, &prev)
		if same {
			flags |= inputSame
		}
		b.Elem().Uvarint(uint64(in.Sequence - prev.Sequence)).Varint(int64(in.ClientTick - prev.ClientTick)).
			Varint(int64(in.IntendedTick - in.ClientTick)).Varint(in.TimestampMs - prev.TimestampMs).U8(flags)
		if !same {
			b.I8(in.MoveX).I8(in.MoveY).U16(in.Yaw).I16(in.Pitch)
		}
		b.ArrayHeader(uint32(len(in.Actions)))
		for _, a := range in.Actions {
			b.Elem().U8(a.ID).Uvarint(uint64(a.Sequence)).Uvarint(a.StartedAtClientTick).Bytes(a.Params)
		}
		prev = *in
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
	var prev Input
	for range n {
		m.Inputs = append(m.Inputs, Input{})
		in := &m.Inputs[len(m.Inputs)-1]
		dseq := r.Uvarint()
		in.ClientTick = prev.ClientTick + uint64(r.Varint())
		in.IntendedTick = in.ClientTick + uint64(r.Varint())
		in.TimestampMs = prev.TimestampMs + r.Varint()
		flags := r.U8()
		if dseq == 0 || dseq > uint64(1<<32-1-prev.Sequence) || flags&^(inputJump|inputSprint|inputSame) != 0 {
			return fmt.Errorf("%w: input sequence +%d flags %#x", ErrMalformed, dseq, flags)
		}
		in.Sequence, in.Jump, in.Sprint = prev.Sequence+uint32(dseq), flags&inputJump != 0, flags&inputSprint != 0
		if flags&inputSame != 0 {
			in.MoveX, in.MoveY, in.Yaw, in.Pitch = prev.MoveX, prev.MoveY, prev.Yaw, prev.Pitch
		} else {
			in.MoveX, in.MoveY, in.Yaw, in.Pitch = r.I8(), r.I8(), r.U16(), r.I16()
			if sameView(in, &prev) {
				return fmt.Errorf("%w: input %d repeats its view without the flag", ErrMalformed, in.Sequence)
			}
		}
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
		prev = *in
	}
	return finish(TypeInput, &r)
}
