package protocol

import (
	"errors"
	"fmt"
)

// ProtocolID names an order wire format and its version, so peers can refuse
// a format they do not speak.
type ProtocolID uint32

// OrderCodec turns ticks of orders into packets and back. NativeCodec is the
// tickwire format; other implementations can translate to another engine's
// wire format for cross-engine play.
type OrderCodec interface {
	// ProtocolID identifies the format and version.
	ProtocolID() ProtocolID
	// Encode appends to dst the packets carrying ticks, in order. Each
	// packet is at most the codec's MaxPacketSize; a tick too large for one
	// packet continues in the next. Buffers in dst's spare capacity are
	// reused.
	Encode(dst [][]byte, ticks []TickOrders) ([][]byte, error)
	// Decode appends the ticks carried by one packet to dst. Feed packets
	// in the order Encode produced them and pass the previous result back as
	// dst: a packet that continues a tick merges its orders into dst's last
	// element. Decoded slices never alias packet.
	Decode(dst []TickOrders, packet []byte) ([]TickOrders, error)
}

// Errors returned by the order codec. Decode wraps them in a *DecodeError;
// test with errors.Is.
var (
	ErrTruncated         = errors.New("protocol: packet truncated")
	ErrBadVersion        = errors.New("protocol: unknown codec version")
	ErrUnknownTag        = errors.New("protocol: unknown or misplaced tag")
	ErrUnknownOrderKind  = errors.New("protocol: unknown order kind")
	ErrBadVarint         = errors.New("protocol: malformed varint")
	ErrValueRange        = errors.New("protocol: value out of range")
	ErrLimit             = errors.New("protocol: protocol limit exceeded")
	ErrPacketTooLarge    = errors.New("protocol: packet larger than the limit")
	ErrBadContinuation   = errors.New("protocol: continuation does not match the previous packet")
	ErrNoPrevious        = errors.New("protocol: field refers to a previous value the packet lacks")
	ErrOrderTooLarge     = errors.New("protocol: order does not fit in one packet")
	ErrTicksOutOfOrder   = errors.New("protocol: ticks must increase")
	ErrInvalidOrderValue = errors.New("protocol: invalid order")
)

// DecodeError reports where in a packet decoding failed.
type DecodeError struct {
	Offset int   // byte offset in the packet
	Err    error // one of the sentinel errors above
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%v at byte %d", e.Err, e.Offset)
}

func (e *DecodeError) Unwrap() error { return e.Err }
