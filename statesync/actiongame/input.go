package actiongame

import (
	"encoding/binary"

	"github.com/tickwire/tickwire/sim/action"
)

// InputKind says what a frame's input for a client is.
type InputKind uint8

// Input kinds.
const (
	KindLeave   InputKind = iota // no bytes: the client left
	KindJoin                     // spawn the client's player
	KindInput                    // a player's input
	KindInvalid                  // malformed: ignored by every client alike
)

const inputLen = 12

// JoinInput is the input that spawns the sender's player.
func JoinInput() []byte { return []byte{byte(KindJoin)} }

// EncodeInput appends a player's input for a frame to dst.
func EncodeInput(dst []byte, in action.Input) []byte {
	var flags byte
	if in.Jump {
		flags |= 1
	}
	if in.Sprint {
		flags |= 2
	}
	if in.Cast {
		flags |= 4
	}
	dst = append(dst, byte(KindInput), byte(in.MoveX), byte(in.MoveY), flags)
	dst = binary.LittleEndian.AppendUint16(dst, in.Yaw)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(in.Pitch))
	return binary.LittleEndian.AppendUint32(dst, in.CastSeq)
}

// DecodeInput decodes a frame's input; anything malformed is KindInvalid
// and ignored by every client alike.
func DecodeInput(b []byte) (action.Input, InputKind) {
	switch {
	case len(b) == 0:
		return action.Input{}, KindLeave
	case len(b) == 1 && InputKind(b[0]) == KindJoin:
		return action.Input{}, KindJoin
	case len(b) != inputLen || InputKind(b[0]) != KindInput || b[3]&^7 != 0:
		return action.Input{}, KindInvalid
	}
	return action.Input{
		MoveX: int8(b[1]), MoveY: int8(b[2]),
		Jump: b[3]&1 != 0, Sprint: b[3]&2 != 0, Cast: b[3]&4 != 0,
		Yaw: binary.LittleEndian.Uint16(b[4:]), Pitch: int16(binary.LittleEndian.Uint16(b[6:])),
		CastSeq: binary.LittleEndian.Uint32(b[8:]),
	}, KindInput
}
