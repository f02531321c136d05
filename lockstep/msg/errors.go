package msg

import (
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Sentinel errors. Decode and Append wrap them in a *Error; test with
// errors.Is. The underlying wire or protocol error is reachable too.
var (
	// ErrUnknownType: the message type is not a relay message.
	ErrUnknownType = errors.New("lockstep/msg: unknown message type")
	// ErrMalformed: a field's encoding is broken (truncated, overlong
	// varint, trailing bytes).
	ErrMalformed = errors.New("lockstep/msg: malformed message")
	// ErrRange: a field holds a value its type does not allow (a count
	// beyond 16 bits, an unknown flag or removal reason).
	ErrRange = errors.New("lockstep/msg: value out of range")
	// ErrOrders: the embedded order packets are invalid, or do not carry
	// exactly the message's tick.
	ErrOrders = errors.New("lockstep/msg: invalid orders")
)

// Error reports which message failed and why.
type Error struct {
	Type  wire.MessageType // the message type, if known
	Err   error            // one of the sentinel errors above
	Cause error            // the wire or protocol error, if any
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%v in %v: %v", e.Err, typeName(e.Type), e.Cause)
	}
	return fmt.Sprintf("%v in %v", e.Err, typeName(e.Type))
}

// Unwrap returns the sentinel and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

func typeName(t wire.MessageType) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	if n, ok := rejoinNames[t]; ok {
		return n
	}
	return t.String()
}

// typeNames names the relay message types; it is never modified.
var typeNames = map[wire.MessageType]string{
	TypeOrderSubmit:     "OrderSubmit",
	TypeTickFrame:       "TickFrame",
	TypeSyncHash:        "SyncHash",
	TypeTimingFeedback:  "TimingFeedback",
	TypeClientMetrics:   "ClientMetrics",
	TypeDesyncDetected:  "DesyncDetected",
	TypePlayerRemoved:   "PlayerRemoved",
	TypeLateNotice:      "LateNotice",
	TypeCalibrationPing: "CalibrationPing",
	TypeCalibrationPong: "CalibrationPong",
	TypeMatchTiming:     "MatchTiming",
	TypeSeedCommit:      "SeedCommit",
	TypeSeedCommitments: "SeedCommitments",
	TypeSeedReveal:      "SeedReveal",
	TypeSeedResult:      "SeedResult",
}
