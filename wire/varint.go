package wire

import (
	"encoding/binary"
	"math/bits"
)

// MaxVarintLen is the longest LEB128 encoding of a 64-bit value.
const MaxVarintLen = binary.MaxVarintLen64

// AppendUvarint appends the unsigned LEB128 encoding of v to dst: seven bits
// per byte, least significant group first, the high bit set on every byte
// but the last. The encoding is always the shortest one.
func AppendUvarint(dst []byte, v uint64) []byte {
	return binary.AppendUvarint(dst, v)
}

// UvarintLen is the number of bytes AppendUvarint writes for v.
func UvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// Uvarint decodes an unsigned LEB128 value from the start of b and returns
// it with the number of bytes read. Decoding is strict, so every value has
// exactly one accepted encoding: it fails with ErrShort if b ends before the
// last byte, ErrOverflow if the value needs more than 64 bits, and
// ErrOverlong if the encoding is longer than MaxVarintLen or not the
// shortest (a final 0x00 byte after a continuation).
func Uvarint(b []byte) (v uint64, n int, err error) {
	var shift uint
	for i := range MaxVarintLen {
		if i == len(b) {
			return 0, 0, ErrShort
		}
		c := b[i]
		if c < 0x80 {
			if i == MaxVarintLen-1 && c > 1 {
				return 0, 0, ErrOverflow
			}
			if c == 0 && i > 0 {
				return 0, 0, ErrOverlong
			}
			return v | uint64(c)<<shift, i + 1, nil
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0, ErrOverlong
}

// ZigZag maps a signed integer to an unsigned one so that values of small
// magnitude get small codes: 0→0, -1→1, 1→2, -2→3, ...
func ZigZag(v int64) uint64 {
	return uint64(v<<1) ^ uint64(v>>63)
}

// UnZigZag inverts ZigZag.
func UnZigZag(u uint64) int64 {
	return int64(u>>1) ^ -int64(u&1)
}

// AppendVarint appends the zigzag LEB128 encoding of v to dst.
func AppendVarint(dst []byte, v int64) []byte {
	return AppendUvarint(dst, ZigZag(v))
}

// Varint decodes a zigzag LEB128 value from the start of b, with the same
// strictness as Uvarint.
func Varint(b []byte) (v int64, n int, err error) {
	u, n, err := Uvarint(b)
	return UnZigZag(u), n, err
}
