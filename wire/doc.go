// Package wire encodes and decodes tickwire messages: a prefix-coded
// message type followed by fields written by a Builder and read back, in the
// same order, by a Reader. It also provides the strict LEB128 and zigzag
// varint functions other packages reuse. It imports only the standard
// library.
//
// # Message layout
//
// A message has no header of its own beyond its type; its length and
// channel come from the transport framing around it.
//
//	+--------------+---------+---------+-----+---------+
//	| type (1-3 B) | field 1 | field 2 | ... | field n |
//	+--------------+---------+---------+-----+---------+
//
// An EntityPosition message, for example (entity id, position, yaw, pitch):
//
//	 0        1                 5                                 17      19      21
//	+--------+-----------------+---------------------------------+-------+-------+
//	|  0x03  | id  U32 (LE)    | QuantizedPos  3 x I32 (LE)      |yaw U16|pit U16|
//	+--------+-----------------+---------------------------------+-------+-------+
//
// # Message type prefix
//
// The first byte of a message says how long its type is:
//
//	first byte   length  MessageType values     use
//	0x00-0x7F    1 byte  0x00-0x7F              high frequency: input, positions
//	0x80-0xBF    2 bytes 0x8000-0xBFFF          medium: actions, UI, chunk data
//	0xC0-0xDF    3 bytes 0xC00000-0xDFFFFF      rare: handshake, assets
//	0xE0-0xFF    reserved, rejected with ErrReservedType
//
// The seed design writes its message types as numbers (0x8001, 0xC00001)
// without saying how the number maps to bytes. This package decides that a
// MessageType value is its wire bytes read big-endian: 0x8001 is the two
// bytes 0x80 0x01, 0xC00001 the three bytes 0xC0 0x00 0x01. So the class
// bits are part of the value, and a value is valid iff it is
// below 0x80, in [0x8000, 0xBFFF], or in [0xC00000, 0xDFFFFF]. The prefix
// code is the one place the package is big-endian.
//
// # Field encodings
//
// Fixed-width numbers are little-endian, the byte order of every mainstream
// CPU, so encoding and decoding are plain loads and stores.
//
//	Builder / Reader        bytes   encoding
//	U8 / I8                 1       two's complement
//	U16 / I16               2       little-endian, two's complement
//	U32 / I32               4       little-endian, two's complement
//	U64 / I64               8       little-endian, two's complement
//	F32 / F64               4 / 8   IEEE 754 bits, little-endian (NaN payloads kept)
//	Bool                    1       0x00 false, 0x01 true; other bytes are ErrInvalid
//	Uvarint                 1-10    unsigned LEB128 (the seed's VarInt)
//	Varint                  1-10    zigzag, then LEB128
//	Bytes / String / CBOR   n+len   Uvarint length, then the bytes (CBOR is opaque)
//	Vec3                    12      3 x F32
//	BlockPos                12      3 x I32
//	QuantizedPos            12      3 x I32, each round(v*4096): 20.12 fixed point
//	QuantizedAngle          2       U16, 1/65536 of a turn; read back in [-π, π)
//	ArrayHeader / MapHeader 1-5     Uvarint count (entries, for a map), elements follow
//
// LEB128 stores seven bits per byte, least significant group first, with
// the high bit set on every byte but the last:
//
//	300 = 0b_0000010_0101100      two 7-bit groups
//	         group 1 group 0
//	-> 1_0101100 0_0000010 = 0xAC 0x02   (group 0 first, continuation bit on it)
//
// Decoding is strict so each value has exactly one encoding: a varint longer
// than ten bytes or not in shortest form is ErrOverlong, one exceeding 64
// bits ErrOverflow.
//
// Zigzag maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ..., so small negative
// numbers stay short.
//
// QuantizedPos rounds half away from zero and accepts axes in
// [MinQuantizedPos, MaxQuantizedPos] = [-524288, 524287.99976]; beyond, or
// NaN, is ErrOutOfRange. Positions read back are exact multiples of 1/4096,
// so re-encoding them reproduces the bytes. QuantizedAngle wraps any finite
// angle into one turn; NaN and infinities are ErrOutOfRange.
//
// # Arrays and maps
//
// A header carries only a count; the caller writes the elements after it.
// So that Build can detect an incomplete array, the Builder tracks open
// headers on a small fixed stack (MaxHeaderDepth deep, no allocation): a
// header with count n > 0 opens a frame expecting n elements, the caller
// calls Elem before each element (before each key-value pair of a map), and
// the Elem marking the last element closes the frame. Build fails with
// ErrUnclosedHeader while a frame is open; Elem with nothing open, or
// nesting deeper than MaxHeaderDepth, is ErrHeaderMisuse.
//
//	b.ArrayHeader(2).
//		Elem().U16(7).
//		Elem().U16(9)   // closes the array
//
// # Errors and limits
//
// Builder and Reader keep the first error and ignore later calls, so a
// sequence of writes or reads is checked once at the end with Build or Err.
// Errors are *Error values wrapping a sentinel (ErrShort, ErrOverflow,
// ErrOverlong, ErrTooLarge, ErrReservedType, ...) with the method and
// offset; test with errors.Is.
//
// A Builder appends to the caller's buffer and does not allocate while it
// has capacity. It refuses to grow a message past its size limit
// (DefaultMaxSize, 1 MiB, unless SetMaxSize says otherwise) with
// ErrTooLarge.
//
// A Reader never panics on any input and allocates nothing but the *Error
// it reports. Bytes, CBOR and
// StringView return views aliasing the input rather than copies. A length
// prefix larger than the remaining input is ErrTooLarge before anything is
// sliced, and array and map counts are checked against the remaining input
// (at least one byte per array element, two per map entry), so a caller may
// size a slice from a count without trusting the peer.
package wire
