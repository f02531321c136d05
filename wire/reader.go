package wire

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Reader decodes one message, reading fields in the order the Builder wrote
// them. The first failing read records a sticky error: later reads return
// zero values and Err reports the first failure. A Reader never panics and
// never allocates except to report an error.
//
// Bytes, CBOR and StringView return views that alias the message: they stay
// valid only while the message buffer is neither modified nor reused. Copy
// them (bytes.Clone, strings.Clone) to keep them longer.
//
// The zero Reader is ready for Reset.
type Reader struct {
	msg []byte
	off int
	typ MessageType
	err error
}

// NewReader parses the message type prefix of msg and returns a Reader
// positioned at the first field.
func NewReader(msg []byte) *Reader {
	r := new(Reader)
	r.Reset(msg)
	return r
}

// Reset starts reading msg: it parses the message type prefix and positions
// the Reader at the first field. A bad prefix is a sticky error.
func (r *Reader) Reset(msg []byte) {
	*r = Reader{msg: msg}
	t, n, err := ParseMessageType(msg)
	if err != nil {
		r.fail("Type", err)
		return
	}
	r.typ, r.off = t, n
}

// Type is the message type, or 0 if the prefix could not be parsed.
func (r *Reader) Type() MessageType { return r.typ }

// Valid reports whether every read so far succeeded.
func (r *Reader) Valid() bool { return r.err == nil }

// Err returns the first read error, or nil.
func (r *Reader) Err() error { return r.err }

// Offset is the number of message bytes consumed, type prefix included.
func (r *Reader) Offset() int { return r.off }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.msg) - r.off }

// HasMore reports whether unread bytes remain and no read has failed.
func (r *Reader) HasMore() bool { return r.err == nil && r.Remaining() > 0 }

// Skip advances past n bytes. Skipping past the end is ErrShort and a
// negative n is ErrOutOfRange.
func (r *Reader) Skip(n int) {
	if n < 0 {
		if r.err == nil {
			r.fail("Skip", ErrOutOfRange)
		}
		return
	}
	r.take("Skip", n)
}

// Finish returns the first read error or, if none, ErrTrailing when unread
// bytes remain. Call it after the last field of a message whose layout
// allows no extension.
func (r *Reader) Finish() error {
	if r.err == nil && r.Remaining() > 0 {
		r.fail("Finish", ErrTrailing)
	}
	return r.err
}

func (r *Reader) fail(op string, err error) {
	r.err = &Error{Op: op, Offset: r.off, Err: err}
}

// take consumes n bytes and returns them, or returns nil after recording
// ErrShort.
func (r *Reader) take(op string, n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > r.Remaining() {
		r.fail(op, ErrShort)
		return nil
	}
	p := r.msg[r.off : r.off+n : r.off+n]
	r.off += n
	return p
}

// Fixed reads n bytes of a field whose size the layout fixes and returns
// them (a view of the message, not a copy), or nil after recording ErrShort.
func (r *Reader) Fixed(n int) []byte { return r.take("Fixed", n) }

// U8 reads one byte.
func (r *Reader) U8() uint8 {
	if p := r.take("U8", 1); p != nil {
		return p[0]
	}
	return 0
}

// U16 reads a little-endian uint16.
func (r *Reader) U16() uint16 {
	if p := r.take("U16", 2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

// U32 reads a little-endian uint32.
func (r *Reader) U32() uint32 {
	if p := r.take("U32", 4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

// U64 reads a little-endian uint64.
func (r *Reader) U64() uint64 {
	if p := r.take("U64", 8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// I8 reads a two's-complement byte.
func (r *Reader) I8() int8 { return int8(r.U8()) }

// I16 reads a little-endian int16.
func (r *Reader) I16() int16 { return int16(r.U16()) }

// I32 reads a little-endian int32.
func (r *Reader) I32() int32 { return int32(r.U32()) }

// I64 reads a little-endian int64.
func (r *Reader) I64() int64 { return int64(r.U64()) }

// F32 reads IEEE 754 bits written by Builder.F32.
func (r *Reader) F32() float32 { return math.Float32frombits(r.U32()) }

// F64 reads IEEE 754 bits written by Builder.F64.
func (r *Reader) F64() float64 { return math.Float64frombits(r.U64()) }

// Bool reads one byte; anything but 0 or 1 is ErrInvalid.
func (r *Reader) Bool() bool {
	p := r.take("Bool", 1)
	if p == nil {
		return false
	}
	if p[0] > 1 {
		r.off--
		r.fail("Bool", ErrInvalid)
		return false
	}
	return p[0] == 1
}

// Uvarint reads an unsigned LEB128 varint, strictly as the package function
// Uvarint does.
func (r *Reader) Uvarint() uint64 { return r.uvarint("Uvarint") }

// Varint reads a zigzag LEB128 varint.
func (r *Reader) Varint() int64 { return UnZigZag(r.uvarint("Varint")) }

func (r *Reader) uvarint(op string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n, err := Uvarint(r.msg[r.off:])
	if err != nil {
		r.fail(op, err)
		return 0
	}
	r.off += n
	return v
}

// Bytes reads a length-prefixed byte string and returns a view into the
// message (see Reader). A length beyond the remaining input is ErrTooLarge.
func (r *Reader) Bytes() []byte { return r.lengthPrefixed("Bytes") }

// StringView reads a length-prefixed string. The string shares memory with
// the message without copying, so it changes if the message buffer is
// modified; use strings.Clone to keep it beyond the buffer's lifetime.
func (r *Reader) StringView() string {
	p := r.lengthPrefixed("String")
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(&p[0], len(p))
}

// CBOR reads an embedded CBOR item as an opaque view into the message.
func (r *Reader) CBOR() []byte { return r.lengthPrefixed("CBOR") }

func (r *Reader) lengthPrefixed(op string) []byte {
	start := r.off
	n := r.uvarint(op)
	if r.err != nil {
		return nil
	}
	if n > uint64(r.Remaining()) {
		r.off = start
		r.fail(op, ErrTooLarge)
		return nil
	}
	return r.take(op, int(n))
}

// Vec3 reads three F32s.
func (r *Reader) Vec3() (x, y, z float32) { return r.F32(), r.F32(), r.F32() }

// BlockPos reads three I32s.
func (r *Reader) BlockPos() (x, y, z int32) { return r.I32(), r.I32(), r.I32() }

// QuantizedPos reads three 20.12 fixed-point axes. Every value read is
// exactly representable, so re-encoding it gives the same bytes.
func (r *Reader) QuantizedPos() (x, y, z float64) {
	return dequantizePos(r.I32()), dequantizePos(r.I32()), dequantizePos(r.I32())
}

// QuantizedAngle reads a 16-bit angle and returns it in radians in [-π, π).
func (r *Reader) QuantizedAngle() float32 { return dequantizeAngle(r.U16()) }

// ArrayHeader reads an element count. Each element takes at least one byte,
// so a count beyond the remaining input is ErrTooLarge, and a count beyond
// 32 bits is ErrOverflow.
func (r *Reader) ArrayHeader() uint32 { return r.header("ArrayHeader", 1) }

// MapHeader reads an entry count. Each entry holds a key and a value of at
// least one byte each, so a count beyond half the remaining input is
// ErrTooLarge.
func (r *Reader) MapHeader() uint32 { return r.header("MapHeader", 2) }

func (r *Reader) header(op string, minElem uint64) uint32 {
	start := r.off
	n := r.uvarint(op)
	switch {
	case r.err != nil:
		return 0
	case n > math.MaxUint32:
		r.off = start
		r.fail(op, ErrOverflow)
		return 0
	case n > uint64(r.Remaining())/minElem:
		r.off = start
		r.fail(op, ErrTooLarge)
		return 0
	}
	return uint32(n)
}
