package wire

import "strconv"

// MessageType identifies a message. Its value is the prefix-coded wire bytes
// read as a big-endian number (see the package documentation), so a value
// is valid iff it is below 0x80, in [0x8000, 0xBFFF], or in
// [0xC00000, 0xDFFFFF].
type MessageType uint32

// Bounds of the three prefix-code classes.
const (
	maxType1     MessageType = 0x7F
	minType2     MessageType = 0x8000
	maxType2     MessageType = 0xBFFF
	minType3     MessageType = 0xC00000
	maxType3     MessageType = 0xDFFFFF
	reservedByte             = 0xE0
)

// Len is the number of bytes t takes on the wire: 1, 2 or 3, or 0 if t is
// not a valid type.
func (t MessageType) Len() int {
	switch {
	case t <= maxType1:
		return 1
	case t >= minType2 && t <= maxType2:
		return 2
	case t >= minType3 && t <= maxType3:
		return 3
	}
	return 0
}

// Valid reports whether t has a prefix encoding.
func (t MessageType) Valid() bool { return t.Len() != 0 }

// String returns t as MessageType(0x...): the numbers are assigned by
// each protocol built on this package (lockstep/msg, statesync/msg,
// predict, …), which name their own messages.
func (t MessageType) String() string {
	return "MessageType(0x" + strconv.FormatUint(uint64(t), 16) + ")"
}

// AppendMessageType appends the prefix encoding of t to dst. It fails with
// ErrInvalidType, leaving dst unchanged, if t is not Valid.
func AppendMessageType(dst []byte, t MessageType) ([]byte, error) {
	switch t.Len() {
	case 1:
		return append(dst, byte(t)), nil
	case 2:
		return append(dst, byte(t>>8), byte(t)), nil
	case 3:
		return append(dst, byte(t>>16), byte(t>>8), byte(t)), nil
	}
	return dst, ErrInvalidType
}

// ParseMessageType decodes the message type prefix at the start of b and
// returns it with its length. It fails with ErrReservedType if the first
// byte is 0xE0-0xFF and ErrShort if b ends inside the prefix.
func ParseMessageType(b []byte) (t MessageType, n int, err error) {
	if len(b) == 0 {
		return 0, 0, ErrShort
	}
	switch c := b[0]; {
	case c < 0x80:
		n = 1
	case c < 0xC0:
		n = 2
	case c < reservedByte:
		n = 3
	default:
		return 0, 0, ErrReservedType
	}
	if len(b) < n {
		return 0, 0, ErrShort
	}
	for _, c := range b[:n] {
		t = t<<8 | MessageType(c)
	}
	return t, n, nil
}
