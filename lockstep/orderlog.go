package lockstep

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
)

// The order log of desync debug level 1: every tick's orders and the
// state hash after applying them, for replaying a match offline and
// finding the first tick where a simulation goes its own way. Layout
// (integers little endian):
//
//	header  "TWOL" | version u8 (1) | seed u64 | players u16 | player u16
//	record  n uv | n bytes: the tick as a TickFrame message (lockstep/msg:
//	        tick, token 0, flags 0, no removals, its orders) | hash u64
//
// Records follow in tick order. A log cut off inside a record (a crash)
// reads up to its last whole record and says it was truncated.
const (
	orderLogMagic   = "TWOL"
	orderLogVersion = 1
	orderLogHeader  = 4 + 1 + 8 + 2 + 2
)

// ErrOrderLog: a file is not an order log, or is damaged.
var ErrOrderLog = errors.New("lockstep: bad order log")

// OrderLogHeader identifies the match of an order log: its game seed, its
// players, and the player whose client wrote it.
type OrderLogHeader struct {
	Seed    uint64
	Players int
	Player  protocol.PlayerID
}

// OrderLogRecord is one tick of an order log.
type OrderLogRecord struct {
	Orders protocol.TickOrders
	Hash   uint64
}

// OrderLogWriter appends ticks to an order log.
type OrderLogWriter struct {
	w     *bufio.Writer
	codec msg.Codec
	buf   []byte
}

// NewOrderLogWriter writes the header to w and returns the writer.
func NewOrderLogWriter(w io.Writer, h OrderLogHeader) (*OrderLogWriter, error) {
	l := &OrderLogWriter{w: bufio.NewWriter(w)}
	b := append([]byte(orderLogMagic), orderLogVersion)
	b = binary.LittleEndian.AppendUint64(b, h.Seed)
	b = binary.LittleEndian.AppendUint16(b, uint16(h.Players))
	b = binary.LittleEndian.AppendUint16(b, uint16(h.Player))
	_, err := l.w.Write(b)
	return l, err
}

// Append logs one applied tick and the state hash after it.
func (l *OrderLogWriter) Append(t protocol.TickOrders, hash uint64) error {
	frame, err := l.codec.Append(l.buf[:0], &msg.TickFrame{Tick: t.Tick, Orders: t.Orders})
	if err != nil {
		return err
	}
	l.buf = frame
	rec := binary.AppendUvarint(nil, uint64(len(frame)))
	if _, err := l.w.Write(rec); err != nil {
		return err
	}
	if _, err := l.w.Write(frame); err != nil {
		return err
	}
	_, err = l.w.Write(binary.LittleEndian.AppendUint64(nil, hash))
	return err
}

// Flush writes what is buffered.
func (l *OrderLogWriter) Flush() error { return l.w.Flush() }

// OrderLogReader reads an order log.
type OrderLogReader struct {
	Header OrderLogHeader
	r      *bufio.Reader
	codec  msg.Codec
	max    int
	// Truncated is set once Next met the end of the input inside a record.
	Truncated bool
}

// NewOrderLogReader reads and checks the header.
func NewOrderLogReader(r io.Reader) (*OrderLogReader, error) {
	br := bufio.NewReader(r)
	var h [orderLogHeader]byte
	if _, err := io.ReadFull(br, h[:]); err != nil || string(h[:4]) != orderLogMagic {
		return nil, fmt.Errorf("%w: no order log header", ErrOrderLog)
	}
	if h[4] != orderLogVersion {
		return nil, fmt.Errorf("%w: version %d", ErrOrderLog, h[4])
	}
	le := binary.LittleEndian
	hd := OrderLogHeader{Seed: le.Uint64(h[5:]), Players: int(le.Uint16(h[13:])), Player: protocol.PlayerID(le.Uint16(h[15:]))}
	if hd.Players < 1 || hd.Players > relay.MaxPlayers {
		return nil, fmt.Errorf("%w: %d players", ErrOrderLog, hd.Players)
	}
	return &OrderLogReader{Header: hd, r: br, max: msg.Codec{}.MaxTickFrameSize(hd.Players)}, nil
}

// Next returns the next record; io.EOF after the last whole one (with
// Truncated set if bytes of a cut-off record followed it).
func (l *OrderLogReader) Next() (OrderLogRecord, error) {
	n, err := binary.ReadUvarint(l.r)
	switch {
	case err == io.EOF:
		return OrderLogRecord{}, io.EOF
	case err != nil:
		l.Truncated = true
		return OrderLogRecord{}, io.EOF
	case n > uint64(l.max):
		return OrderLogRecord{}, fmt.Errorf("%w: a record of %d bytes", ErrOrderLog, n)
	}
	// Read through a limited reader: a record claiming more bytes than
	// the file holds allocates only what is there.
	frame, err := io.ReadAll(io.LimitReader(l.r, int64(n)))
	var hash [8]byte
	if err != nil || len(frame) < int(n) {
		l.Truncated = true
		return OrderLogRecord{}, io.EOF
	}
	if _, err := io.ReadFull(l.r, hash[:]); err != nil {
		l.Truncated = true
		return OrderLogRecord{}, io.EOF
	}
	m, err := l.codec.Decode(frame)
	if err != nil {
		return OrderLogRecord{}, fmt.Errorf("%w: %v", ErrOrderLog, err)
	}
	f, ok := m.(*msg.TickFrame)
	if !ok || f.Token != 0 || f.Flags != 0 || len(f.Removals) != 0 {
		return OrderLogRecord{}, fmt.Errorf("%w: a record that is not a tick", ErrOrderLog)
	}
	return OrderLogRecord{Orders: protocol.TickOrders{Tick: f.Tick, Orders: f.Orders}, Hash: binary.LittleEndian.Uint64(hash[:])}, nil
}
