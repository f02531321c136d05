package msg

import (
	"errors"

	"github.com/tickwire/tickwire/wire"
)

// Messages of the link between a client and the room, below the protocol.
const (
	TypeHello wire.MessageType = 0x3C
	TypeBye   wire.MessageType = 0x3D
	TypeChunk wire.MessageType = 0x3F
)

// Hello says a client starts afresh on its connection (after a Bye, or to
// rejoin with a new state): the server treats it as a new join.
type Hello struct{}

func (*Hello) Type() wire.MessageType         { return TypeHello }
func (*Hello) appendTo(*wire.Builder)         {}
func (*Hello) parseFrom(r *wire.Reader) error { return r.Err() }

// Bye says a client leaves the room but keeps its connection.
type Bye struct{}

func (*Bye) Type() wire.MessageType         { return TypeBye }
func (*Bye) appendTo(*wire.Builder)         {}
func (*Bye) parseFrom(r *wire.Reader) error { return r.Err() }

// Chunk is one piece of a message too large for one datagram of a
// reliable ordered channel that does not fragment. The pieces of a
// message travel consecutively in order; Count is the number of pieces.
type Chunk struct {
	Index, Count uint8
	Data         []byte
}

func (*Chunk) Type() wire.MessageType { return TypeChunk }

func (m *Chunk) appendTo(b *wire.Builder) { b.U8(m.Index).U8(m.Count).Bytes(m.Data) }

func (m *Chunk) parseFrom(r *wire.Reader) error {
	m.Index, m.Count, m.Data = r.U8(), r.U8(), r.Bytes()
	if r.Err() == nil && (m.Count < 2 || m.Index >= m.Count || len(m.Data) == 0) {
		return invalid(r, "chunk")
	}
	return r.Err()
}

// MaxChunks bounds the pieces of one message, and so its size.
const MaxChunks = 255

// ErrChunks: pieces out of order or a message too large to split.
var ErrChunks = errors.New("statesync/msg: bad chunk sequence")

// Split returns b itself if it fits in max bytes, else the encodings of
// the Chunks carrying it, each at most max bytes.
func Split(b []byte, max int) ([][]byte, error) {
	if len(b) <= max {
		return [][]byte{b}, nil
	}
	room := max - 8 // type, index, count, length prefix
	n := (len(b) + room - 1) / room
	if room <= 0 || n > MaxChunks {
		return nil, ErrChunks
	}
	out := make([][]byte, 0, n)
	for i := range n {
		piece := b[i*room : min(len(b), (i+1)*room)]
		c, err := Append(nil, &Chunk{Index: uint8(i), Count: uint8(n), Data: piece})
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Reassembler joins Chunks back into messages. Its buffer never exceeds
// the pieces received, which are bounded by MaxChunks and the size of a
// datagram. The zero Reassembler is ready.
type Reassembler struct {
	buf  []byte
	next uint8
	n    uint8
}

// Parse parses a message received on the link: a whole message (from
// any channel, even between the pieces of a chunked one) is
// returned at once; a Chunk is kept until its message is complete, and
// (nil, nil) means more pieces are needed. The message may alias b or the
// reassembler's buffer until the next call.
func (a *Reassembler) Parse(b []byte) (Message, error) {
	m, err := Parse(b)
	if err != nil {
		a.buf, a.next, a.n = a.buf[:0], 0, 0
		return nil, err
	}
	c, ok := m.(*Chunk)
	if !ok {
		// Whole messages of other channels may arrive between the
		// pieces of one on the ordered channel.
		return m, nil
	}
	if c.Index != a.next || (a.n != 0 && c.Count != a.n) {
		a.buf, a.next, a.n = a.buf[:0], 0, 0
		return nil, ErrChunks
	}
	a.buf = append(a.buf, c.Data...)
	a.next, a.n = a.next+1, c.Count
	if a.next < a.n {
		return nil, nil
	}
	whole := a.buf
	a.buf, a.next, a.n = nil, 0, 0
	m, err = Parse(whole)
	if _, nested := m.(*Chunk); nested {
		return nil, ErrChunks
	}
	return m, err
}
