package join

import (
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Message types of the join exchange: three-byte types (see the wire
// package for the prefix code), the same on every network model.
const (
	TypeJoinRoom     wire.MessageType = 0xC00050
	TypeJoinAccepted wire.MessageType = 0xC00051
	TypeJoinRefused  wire.MessageType = 0xC00052
	TypeLeave        wire.MessageType = 0xC00053
	TypeMatchResult  wire.MessageType = 0xC00054
)

// Limits of the join messages.
const (
	// MaxRoomName is the longest room name in bytes.
	MaxRoomName = 64
	// MaxRefusalDetail is the longest refusal detail in bytes.
	MaxRefusalDetail = 200
	// MaxModelName is the longest network model name and the longest
	// match type in bytes.
	MaxModelName = 32
)

// Errors of Append and Parse. Test with errors.Is.
var (
	// ErrUnknownType: the message is not one of the join messages.
	ErrUnknownType = errors.New("join: not a join message")
	// ErrMalformed: a field's encoding is broken (truncated, overlong
	// varint, trailing bytes).
	ErrMalformed = errors.New("join: malformed message")
	// ErrRange: a field holds a value its type does not allow (a room
	// name too long, an unknown reason or join kind, a zero secret).
	ErrRange = errors.New("join: value out of range")
)

// Message is one join message: *JoinRoom, *JoinAccepted, *JoinRefused,
// *Leave or *MatchResult.
type Message interface {
	// Type is the message's wire type.
	Type() wire.MessageType
	// Append appends the message's encoding to dst; on error dst is
	// returned unchanged and the error wraps ErrRange.
	Append(dst []byte) ([]byte, error)
}

// Parse decodes one join message. It never panics, checks every length
// against the input and its bound before copying, and rejects trailing
// bytes and out-of-range values; the error wraps ErrUnknownType,
// ErrMalformed or ErrRange (and the wire error beneath). The message does
// not alias b.
func Parse(b []byte) (Message, error) {
	r := reader{Reader: wire.NewReader(b)}
	var m Message
	switch t := r.Type(); t {
	case TypeJoinRoom:
		m = parseJoinRoom(&r)
	case TypeJoinAccepted:
		m = parseJoinAccepted(&r)
	case TypeJoinRefused:
		m = parseJoinRefused(&r)
	case TypeLeave:
		m = parseLeave(&r)
	case TypeMatchResult:
		m = parseMatchResult(&r)
	default:
		if r.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, r.Err())
		}
		return nil, fmt.Errorf("%w: type %v", ErrUnknownType, t)
	}
	if err := r.finish(); err != nil {
		return nil, fmt.Errorf("%s: %w", typeName(m.Type()), err)
	}
	return m, nil
}

// build finishes an encoding started with wire.Builder.Reset(dst, t):
// dst unchanged and the error on failure.
func build(dst []byte, t wire.MessageType, b *wire.Builder) ([]byte, error) {
	out, err := b.Build()
	if err != nil {
		return dst, fmt.Errorf("%s: %w: %w", typeName(t), ErrRange, err)
	}
	return out, nil
}

// rangeError is the error of a message whose fields Append refuses.
func rangeError(t wire.MessageType, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", typeName(t), ErrRange, fmt.Sprintf(format, args...))
}

func typeName(t wire.MessageType) string {
	switch t {
	case TypeJoinRoom:
		return "JoinRoom"
	case TypeJoinAccepted:
		return "JoinAccepted"
	case TypeJoinRefused:
		return "JoinRefused"
	case TypeLeave:
		return "Leave"
	case TypeMatchResult:
		return "MatchResult"
	}
	return t.String()
}
