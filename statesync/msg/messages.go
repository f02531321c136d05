package msg

import (
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// Message types. They share the one-byte class of the wire registry but
// travel only on state-sync rooms, so their numbers are the seed's.
const (
	TypeTick                wire.MessageType = 0x01
	TypeInput               wire.MessageType = 0x02
	TypeStateHash           wire.MessageType = 0x30
	TypePartitionData       wire.MessageType = 0x31
	TypePartitionRequest    wire.MessageType = 0x32
	TypeReliabilityUpdate   wire.MessageType = 0x33
	TypeClientListUpdate    wire.MessageType = 0x34
	TypePartitionCorrection wire.MessageType = 0x35
	TypeSyncRequest         wire.MessageType = 0x36
	TypeMerkleLeaves        wire.MessageType = 0x37
	TypeEntityData          wire.MessageType = 0x38
	TypeFullState           wire.MessageType = 0x39
	TypeWelcome             wire.MessageType = 0x3A
	TypeEntityRequest       wire.MessageType = 0x3B
	TypeStateDigest         wire.MessageType = 0x3E
)

// Errors of Parse besides the wire package's. Test with errors.Is.
var (
	// ErrUnknownType: the message type is not a state-sync message.
	ErrUnknownType = errors.New("statesync/msg: unknown message type")
	// ErrInvalid: a field holds a value its encoder never writes (an
	// unknown enum, an unsorted list, a partition beyond its count).
	ErrInvalid = errors.New("statesync/msg: invalid field")
)

// Message is one state-sync message. Its encoding and its parsing are
// written side by side in the file of its type.
type Message interface {
	// Type is the message's wire type.
	Type() wire.MessageType
	// appendTo writes the fields after the type.
	appendTo(b *wire.Builder)
	// parseFrom reads the fields after the type, checking them.
	parseFrom(r *wire.Reader) error
}

// Append appends m's encoding to dst. On error dst is returned unchanged.
func Append(dst []byte, m Message) ([]byte, error) {
	var b wire.Builder
	b.Reset(dst, m.Type())
	m.appendTo(&b)
	return b.Build()
}

// Parse decodes one message. The message's byte slices alias b. Trailing
// bytes are an error.
func Parse(b []byte) (Message, error) {
	var r wire.Reader
	r.Reset(b)
	if err := r.Err(); err != nil {
		return nil, err
	}
	m := newMessage(r.Type())
	if m == nil {
		return nil, fmt.Errorf("%w: %v", ErrUnknownType, r.Type())
	}
	if err := m.parseFrom(&r); err != nil {
		return nil, err
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	return m, nil
}

func newMessage(t wire.MessageType) Message {
	switch t {
	case TypeTick:
		return new(Tick)
	case TypeInput:
		return new(Input)
	case TypeStateHash:
		return new(StateHash)
	case TypePartitionData:
		return new(PartitionData)
	case TypePartitionRequest:
		return new(PartitionRequest)
	case TypeReliabilityUpdate:
		return new(ReliabilityUpdate)
	case TypeClientListUpdate:
		return new(ClientListUpdate)
	case TypePartitionCorrection:
		return new(PartitionCorrection)
	case TypeSyncRequest:
		return new(SyncRequest)
	case TypeMerkleLeaves:
		return new(MerkleLeaves)
	case TypeEntityData:
		return new(EntityData)
	case TypeFullState:
		return new(FullState)
	case TypeWelcome:
		return new(Welcome)
	case TypeEntityRequest:
		return new(EntityRequest)
	case TypeStateDigest:
		return new(StateDigest)
	case TypeHello:
		return new(Hello)
	case TypeBye:
		return new(Bye)
	case TypeChunk:
		return new(Chunk)
	}
	return nil
}

// invalid returns the reader's error if any, else an ErrInvalid naming what.
func invalid(r *wire.Reader, what string) error {
	if err := r.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s", ErrInvalid, what)
}

// Encoding says how a data field is stored.
type Encoding uint8

// Encodings of data fields.
const (
	Raw  Encoding = 0 // the bytes as they are
	Zstd Encoding = 1 // one zstd frame holding the bytes
)

// listHeader reads a list's count and checks it against the bytes left at
// minSize bytes per element, the smallest an element can be encoded in,
// so that no count a peer wrote makes Parse allocate more than the
// message holds.
func listHeader(r *wire.Reader, minSize int) int {
	n := int(r.ArrayHeader())
	if r.Err() == nil && n > r.Remaining()/minSize {
		r.Skip(r.Remaining() + 1) // records ErrShort
		return 0
	}
	return n
}

func readEncoding(r *wire.Reader) (Encoding, error) {
	e := Encoding(r.U8())
	if r.Err() != nil || e > Zstd {
		return 0, invalid(r, "encoding")
	}
	return e, nil
}
