package wire

import (
	"encoding/binary"
	"math"
)

const (
	// DefaultMaxSize is the builder's message size limit, type prefix
	// included, unless SetMaxSize chooses another.
	DefaultMaxSize = 1 << 20
	// MaxHeaderDepth is how deeply array and map headers may nest while
	// they still expect elements.
	MaxHeaderDepth = 16
)

// Builder appends one message, the type prefix followed by fields, to a
// caller-supplied buffer. Writes are chainable:
//
//	var b wire.Builder
//	b.Reset(buf[:0], wire.EntityPosition)
//	b.U32(id).QuantizedPos(x, y, z).QuantizedAngle(yaw)
//	buf, err := b.Build()
//
// The first failing write records a sticky error; later writes do nothing
// and Build returns the error. Writes do not allocate while the buffer has
// capacity. The zero Builder is ready for Reset.
//
// Array and map headers declare how many elements follow; the caller marks
// the start of each element with Elem, and Build fails with
// ErrUnclosedHeader while a header still expects elements.
type Builder struct {
	buf     []byte
	start   int // len(buf) when the message began
	maxSize int // 0 means DefaultMaxSize
	err     error
	open    [MaxHeaderDepth]uint32 // elements still expected, innermost last
	depth   int
}

// NewBuilder starts a message of type t appended to buf.
func NewBuilder(buf []byte, t MessageType) *Builder {
	b := new(Builder)
	b.Reset(buf, t)
	return b
}

// Reset discards any message in progress and starts a message of type t
// appended to buf, keeping the size limit. A type that is not Valid is a
// sticky ErrInvalidType.
func (b *Builder) Reset(buf []byte, t MessageType) {
	*b = Builder{buf: buf, start: len(buf), maxSize: b.maxSize}
	var err error
	if b.buf, err = AppendMessageType(b.buf, t); err != nil {
		b.fail("Reset", err)
	}
}

// SetMaxSize sets the size limit for the message, type prefix included;
// n <= 0 restores DefaultMaxSize. The limit survives Reset.
func (b *Builder) SetMaxSize(n int) *Builder {
	b.maxSize = max(n, 0)
	return b
}

// Len is the size of the message so far, type prefix included.
func (b *Builder) Len() int { return len(b.buf) - b.start }

// Err returns the sticky error, or nil.
func (b *Builder) Err() error { return b.err }

// Build finishes the message and returns the buffer with the message
// appended. It fails if a write failed or a header still expects elements;
// the buffer is then returned truncated to its length before the message.
func (b *Builder) Build() ([]byte, error) {
	if b.err == nil && b.depth > 0 {
		b.fail("Build", ErrUnclosedHeader)
	}
	if b.err != nil {
		return b.buf[:b.start], b.err
	}
	return b.buf, nil
}

func (b *Builder) fail(op string, err error) {
	b.err = &Error{Op: op, Offset: b.Len(), Err: err}
}

// room reports whether n more bytes may be written, recording ErrTooLarge
// if they would break the size limit.
func (b *Builder) room(op string, n int) bool {
	if b.err != nil {
		return false
	}
	limit := b.maxSize
	if limit == 0 {
		limit = DefaultMaxSize
	}
	if n > limit-b.Len() {
		b.fail(op, ErrTooLarge)
		return false
	}
	return true
}

// U8 writes one byte.
func (b *Builder) U8(v uint8) *Builder {
	if b.room("U8", 1) {
		b.buf = append(b.buf, v)
	}
	return b
}

// U16 writes v little-endian in 2 bytes.
func (b *Builder) U16(v uint16) *Builder {
	if b.room("U16", 2) {
		b.buf = binary.LittleEndian.AppendUint16(b.buf, v)
	}
	return b
}

// U32 writes v little-endian in 4 bytes.
func (b *Builder) U32(v uint32) *Builder {
	if b.room("U32", 4) {
		b.buf = binary.LittleEndian.AppendUint32(b.buf, v)
	}
	return b
}

// U64 writes v little-endian in 8 bytes.
func (b *Builder) U64(v uint64) *Builder {
	if b.room("U64", 8) {
		b.buf = binary.LittleEndian.AppendUint64(b.buf, v)
	}
	return b
}

// I8 writes v as one two's-complement byte.
func (b *Builder) I8(v int8) *Builder { return b.U8(uint8(v)) }

// I16 writes v two's-complement little-endian in 2 bytes.
func (b *Builder) I16(v int16) *Builder { return b.U16(uint16(v)) }

// I32 writes v two's-complement little-endian in 4 bytes.
func (b *Builder) I32(v int32) *Builder { return b.U32(uint32(v)) }

// I64 writes v two's-complement little-endian in 8 bytes.
func (b *Builder) I64(v int64) *Builder { return b.U64(uint64(v)) }

// F32 writes the IEEE 754 bits of v little-endian in 4 bytes.
func (b *Builder) F32(v float32) *Builder { return b.U32(math.Float32bits(v)) }

// F64 writes the IEEE 754 bits of v little-endian in 8 bytes.
func (b *Builder) F64(v float64) *Builder { return b.U64(math.Float64bits(v)) }

// Fixed writes p as it is, with no length: a field whose size the layout
// fixes (a 32-byte digest).
func (b *Builder) Fixed(p []byte) *Builder {
	if b.room("Fixed", len(p)) {
		b.buf = append(b.buf, p...)
	}
	return b
}

// Bool writes 1 for true and 0 for false in one byte.
func (b *Builder) Bool(v bool) *Builder {
	if v {
		return b.U8(1)
	}
	return b.U8(0)
}

// Uvarint writes v as an unsigned LEB128 varint of 1 to 10 bytes. It is the
// seed design's writeVarInt.
func (b *Builder) Uvarint(v uint64) *Builder {
	if b.room("Uvarint", UvarintLen(v)) {
		b.buf = AppendUvarint(b.buf, v)
	}
	return b
}

// Varint writes v as a zigzag LEB128 varint, so values near zero of either
// sign are short.
func (b *Builder) Varint(v int64) *Builder {
	u := ZigZag(v)
	if b.room("Varint", UvarintLen(u)) {
		b.buf = AppendUvarint(b.buf, u)
	}
	return b
}

// Bytes writes p prefixed with its length as a Uvarint.
func (b *Builder) Bytes(p []byte) *Builder { return b.lengthPrefixed("Bytes", p) }

// String writes s like Bytes; it need not be UTF-8.
func (b *Builder) String(s string) *Builder {
	if b.room("String", UvarintLen(uint64(len(s)))+len(s)) {
		b.buf = AppendUvarint(b.buf, uint64(len(s)))
		b.buf = append(b.buf, s...)
	}
	return b
}

// CBOR embeds an already-encoded CBOR item as opaque length-prefixed bytes,
// like Bytes. The package does not parse or validate CBOR.
func (b *Builder) CBOR(p []byte) *Builder { return b.lengthPrefixed("CBOR", p) }

func (b *Builder) lengthPrefixed(op string, p []byte) *Builder {
	if b.room(op, UvarintLen(uint64(len(p)))+len(p)) {
		b.buf = AppendUvarint(b.buf, uint64(len(p)))
		b.buf = append(b.buf, p...)
	}
	return b
}

// Vec3 writes three F32s.
func (b *Builder) Vec3(x, y, z float32) *Builder { return b.F32(x).F32(y).F32(z) }

// BlockPos writes three I32s.
func (b *Builder) BlockPos(x, y, z int32) *Builder { return b.I32(x).I32(y).I32(z) }

// QuantizedPos writes each axis as 20.12 fixed point: an I32 holding
// round(v*4096), rounding half away from zero. An axis that is NaN or
// does not round into [MinQuantizedPos, MaxQuantizedPos] is an
// ErrOutOfRange.
func (b *Builder) QuantizedPos(x, y, z float64) *Builder {
	qx, okx := quantizePos(x)
	qy, oky := quantizePos(y)
	qz, okz := quantizePos(z)
	if !(okx && oky && okz) {
		if b.err == nil {
			b.fail("QuantizedPos", ErrOutOfRange)
		}
		return b
	}
	return b.I32(qx).I32(qy).I32(qz)
}

// QuantizedAngle writes an angle in radians as a U16 counting 1/65536ths of
// a full turn, rounded to the nearest step and wrapped into one turn. NaN
// and infinities are ErrOutOfRange.
func (b *Builder) QuantizedAngle(rad float32) *Builder {
	q, ok := quantizeAngle(rad)
	if !ok {
		if b.err == nil {
			b.fail("QuantizedAngle", ErrOutOfRange)
		}
		return b
	}
	return b.U16(q)
}

// ArrayHeader writes an element count as a Uvarint and opens a header that
// expects n elements, each introduced by Elem. A zero count opens nothing.
func (b *Builder) ArrayHeader(n uint32) *Builder { return b.header("ArrayHeader", n) }

// MapHeader writes an entry count as a Uvarint and opens a header that
// expects n entries, each introduced by one Elem and made of a key followed
// by a value.
func (b *Builder) MapHeader(n uint32) *Builder { return b.header("MapHeader", n) }

func (b *Builder) header(op string, n uint32) *Builder {
	if n > 0 && b.err == nil && b.depth == MaxHeaderDepth {
		b.fail(op, ErrHeaderMisuse)
	}
	if !b.room(op, UvarintLen(uint64(n))) {
		return b
	}
	b.buf = AppendUvarint(b.buf, uint64(n))
	if n > 0 {
		b.open[b.depth] = n
		b.depth++
	}
	return b
}

// Elem marks the start of the next element of the innermost open header.
// Marking its last element closes that header, so what follows belongs to
// the enclosing element or to the message. Elem without an open header is
// an ErrHeaderMisuse. Elem writes nothing.
func (b *Builder) Elem() *Builder {
	if b.err != nil {
		return b
	}
	if b.depth == 0 {
		b.fail("Elem", ErrHeaderMisuse)
		return b
	}
	b.open[b.depth-1]--
	if b.open[b.depth-1] == 0 {
		b.depth--
	}
	return b
}
