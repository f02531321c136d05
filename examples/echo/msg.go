package echo

import (
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/wire"
)

// The echo room's messages, after the join exchange, all on the
// server's reliable ordered lane (server/lanes.Orders):
//
//	Start  server → client, once, when the room is full
//	 0        1
//	+--------+-----------+
//	|  0x01  | players U8|
//	+--------+-----------+
//
//	Say    client → server
//	 0        1          5            13
//	+--------+----------+------------+------------------------+
//	|  0x02  | seq U32  | sent U64   | text: Uvarint len, len B|
//	+--------+----------+------------+------------------------+
//
//	Echo   server → every client of the room (the sender too)
//	 0        1            3          7            15
//	+--------+------------+----------+------------+------------------------+
//	|  0x03  | from U16   | seq U32  | sent U64   | text: Uvarint len, len B|
//	+--------+------------+----------+------------+------------------------+
//
// Numbers are little-endian (package wire). seq numbers a client's Says
// from 1; sent is the client's clock in microseconds, echoed untouched
// so the sender measures the round trip. text is at most MaxText bytes.
const (
	TypeStart wire.MessageType = 0x01
	TypeSay   wire.MessageType = 0x02
	TypeEcho  wire.MessageType = 0x03
)

// ModelName is the echo model's name: in a JoinRoom's network model, in
// the server's configuration (default_network_model, match types) and
// in the JoinAccepted a client receives.
const ModelName = "echo"

// MaxText bounds a Say's text.
const MaxText = 200

// ErrMessage is the error of bytes that are not a valid message of the
// expected type.
var ErrMessage = errors.New("echo: bad message")

// Start tells a client its room is full and playing.
type Start struct {
	Players uint8
}

// Say is what a client says to its room.
type Say struct {
	Seq    uint32
	SentUs uint64
	// Text aliases the decoded bytes.
	Text []byte
}

// Echo is a Say as the room repeats it to everyone, with its sender.
type Echo struct {
	From uint16
	Say
}

// Append appends the encoded Start to dst.
func (m *Start) Append(dst []byte) ([]byte, error) {
	return wire.NewBuilder(dst, TypeStart).U8(m.Players).Build()
}

// Append appends the encoded Say to dst; a text over MaxText is an error.
func (m *Say) Append(dst []byte) ([]byte, error) {
	if err := checkText(m.Text); err != nil {
		return dst, err
	}
	return m.fields(wire.NewBuilder(dst, TypeSay)).Build()
}

// Append appends the encoded Echo to dst.
func (m *Echo) Append(dst []byte) ([]byte, error) {
	if err := checkText(m.Text); err != nil {
		return dst, err
	}
	return m.fields(wire.NewBuilder(dst, TypeEcho).U16(m.From)).Build()
}

func (m *Say) fields(b *wire.Builder) *wire.Builder {
	return b.U32(m.Seq).U64(m.SentUs).Bytes(m.Text)
}

// ParseStart decodes a Start.
func ParseStart(b []byte) (Start, error) {
	r, err := open(b, TypeStart)
	if err != nil {
		return Start{}, err
	}
	m := Start{Players: r.U8()}
	return m, finish(r, nil)
}

// ParseSay decodes a Say; its Text aliases b.
func ParseSay(b []byte) (Say, error) {
	r, err := open(b, TypeSay)
	if err != nil {
		return Say{}, err
	}
	m := readSay(r)
	return m, finish(r, m.Text)
}

// ParseEcho decodes an Echo; its Text aliases b.
func ParseEcho(b []byte) (Echo, error) {
	r, err := open(b, TypeEcho)
	if err != nil {
		return Echo{}, err
	}
	m := Echo{From: r.U16()}
	m.Say = readSay(r)
	return m, finish(r, m.Text)
}

func readSay(r *wire.Reader) Say {
	return Say{Seq: r.U32(), SentUs: r.U64(), Text: r.Bytes()}
}

// open starts reading b as a message of type t.
func open(b []byte, t wire.MessageType) (*wire.Reader, error) {
	r := wire.NewReader(b)
	switch {
	case !r.Valid():
		return nil, fmt.Errorf("%w: %v", ErrMessage, r.Err())
	case r.Type() != t:
		return nil, fmt.Errorf("%w: type %v, want %v", ErrMessage, r.Type(), t)
	}
	return r, nil
}

// finish is the error of a message read with r whose text is text: a
// read error, trailing bytes or a text over MaxText, wrapping ErrMessage.
func finish(r *wire.Reader, text []byte) error {
	if err := r.Finish(); err != nil {
		return fmt.Errorf("%w: %v", ErrMessage, err)
	}
	return checkText(text)
}

// checkText refuses a text over MaxText.
func checkText(text []byte) error {
	if len(text) > MaxText {
		return fmt.Errorf("%w: %d bytes of text, at most %d", ErrMessage, len(text), MaxText)
	}
	return nil
}
