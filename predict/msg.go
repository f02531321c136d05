package predict

import (
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Lane is the delivery class a message needs. A network layer maps lanes
// onto its channels; the loopback delivers all of them in order.
type Lane uint8

// Lanes.
const (
	// LaneReliable is reliable and ordered: the hello and events.
	LaneReliable Lane = iota
	// LaneSequenced is unreliable and sequenced (late copies dropped):
	// inputs (each message repeats every unacknowledged one), clock pings
	// and pongs, input acks.
	LaneSequenced
	// LaneUnreliable is unreliable and may fragment: snapshots.
	LaneUnreliable
	numLanes
)

func (l Lane) String() string {
	switch l {
	case LaneReliable:
		return "reliable"
	case LaneSequenced:
		return "sequenced"
	case LaneUnreliable:
		return "unreliable"
	}
	return fmt.Sprintf("lane(%d)", uint8(l))
}

// Message types. High-frequency messages take one-byte types.
const (
	TypeInput    wire.MessageType = 0x30
	TypeInputAck wire.MessageType = 0x31
	TypeSnapshot wire.MessageType = 0x32
	// TypeCorrectionReport is a client's CorrectionReport.
	TypeCorrectionReport wire.MessageType = 0x33
	TypeEvent            wire.MessageType = 0x8050
	TypeHello            wire.MessageType = 0xC00060
	TypePing             wire.MessageType = 0xC00061
	TypePong             wire.MessageType = 0xC00062
)

// Limits on what a decoder accepts.
const (
	// MaxMessageSize bounds every message (a snapshot may fragment).
	MaxMessageSize = 256 << 10
	// MaxInputsPerMessage bounds an InputMessage batch.
	MaxInputsPerMessage = 32
	// MaxActionsPerInput bounds the actions of one input.
	MaxActionsPerInput = 4
	// MaxActionParams bounds an action's parameters.
	MaxActionParams = 32
)

func malformed(t wire.MessageType, err error) error {
	return fmt.Errorf("%w: %v: %w", ErrMalformed, t, err)
}

// finish returns the reader's error, wrapped as ErrMalformed.
func finish(t wire.MessageType, r *wire.Reader) error {
	if err := r.Finish(); err != nil {
		return malformed(t, err)
	}
	return nil
}

// open starts reading b as a message of type t.
func open(r *wire.Reader, b []byte, t wire.MessageType) error {
	r.Reset(b)
	if r.Err() != nil {
		return malformed(t, r.Err())
	}
	if r.Type() != t {
		return fmt.Errorf("%w: type %v, want %v", ErrMalformed, r.Type(), t)
	}
	return nil
}

// build finishes a message with the size limit of the package.
func build(b *wire.Builder) ([]byte, error) { return b.Build() }

func newBuilder(b *wire.Builder, dst []byte, t wire.MessageType) *wire.Builder {
	b.Reset(dst, t)
	b.SetMaxSize(MaxMessageSize)
	return b
}

// TypeOf returns the type of a message, or an error for a bad prefix.
func TypeOf(b []byte) (wire.MessageType, error) {
	t, _, err := wire.ParseMessageType(b)
	return t, err
}
