package transport

import (
	"encoding/binary"
	"fmt"
)

// Frame header sizes: frameHeaderLen is the largest header of an
// unfragmented frame (channel, flags, sequence, length).
const (
	frameHeaderLen = 6
	fragHeaderLen  = 8
)

// Frame flags (transport seed §5.1).
const (
	frameReliable     = 1 << 0
	frameOrdered      = 1 << 1 // sequenced: ordered or unreliable-sequenced
	frameFragment     = 1 << 2
	frameCompressed   = 1 << 3
	frameLastFragment = 1 << 4
	// frameToEnd marks the last frame of a datagram, whose length field is
	// left out: its payload runs to the end of the datagram.
	frameToEnd = 1 << 5
	// frameParity (bit 6, see parity.go) marks a parity frame; only
	// frameToEnd may accompany it.
	knownFrameFlags = frameReliable | frameOrdered | frameFragment | frameCompressed | frameLastFragment | frameToEnd | frameParity
)

// hasSeq reports whether a frame with these flags carries a sequence
// number: all but unfragmented frames of plain Unreliable channels, which
// never look at it (duplicated datagrams are dropped whole).
func hasSeq(flags uint8) bool {
	return flags&(frameReliable|frameOrdered|frameFragment|frameParity) != 0
}

// frame is one message, or one fragment of a message, inside a datagram.
type frame struct {
	channel ChannelID
	flags   uint8
	seq     uint16 // per-channel message sequence; also the fragment group id
	// Fragment fields, when flags has frameFragment.
	index, count uint16
	total        uint32 // size of the reassembled (possibly compressed) payload
	payload      []byte
}

func (f *frame) size() int { return frameSize(f.flags, len(f.payload)) }

// frameSize is the encoded size of a frame with the given flags and payload.
func frameSize(flags uint8, payload int) int {
	n := 2 + payload
	if hasSeq(flags) {
		n += 2
	}
	if flags&frameToEnd == 0 {
		n += 2
	}
	if flags&frameFragment != 0 {
		n += fragHeaderLen
	}
	return n
}

// appendFrame appends the wire form of f to b.
func appendFrame(b []byte, f *frame) []byte {
	b = append(b, byte(f.channel), f.flags)
	if hasSeq(f.flags) {
		b = binary.BigEndian.AppendUint16(b, f.seq)
	}
	if f.flags&frameToEnd == 0 {
		b = binary.BigEndian.AppendUint16(b, uint16(len(f.payload)))
	}
	if f.flags&frameFragment != 0 {
		b = binary.BigEndian.AppendUint16(b, f.index)
		b = binary.BigEndian.AppendUint16(b, f.count)
		b = binary.BigEndian.AppendUint32(b, f.total)
	}
	return append(b, f.payload...)
}

// parseFrame decodes the frame at the start of b and returns the rest. The
// payload aliases b.
func parseFrame(b []byte) (frame, []byte, error) {
	if len(b) < 2 {
		return frame{}, nil, fmt.Errorf("%w: truncated frame header", ErrMalformed)
	}
	f := frame{channel: ChannelID(b[0]), flags: b[1]}
	if f.flags&^knownFrameFlags != 0 || (f.flags&frameParity != 0 && f.flags&^(frameParity|frameToEnd) != 0) {
		return frame{}, nil, fmt.Errorf("%w: unknown frame flags %#x", ErrMalformed, f.flags)
	}
	b = b[2:]
	if hasSeq(f.flags) {
		if len(b) < 2 {
			return frame{}, nil, fmt.Errorf("%w: truncated frame header", ErrMalformed)
		}
		f.seq = binary.BigEndian.Uint16(b)
		b = b[2:]
	}
	n := -1 // to the end
	if f.flags&frameToEnd == 0 {
		if len(b) < 2 {
			return frame{}, nil, fmt.Errorf("%w: truncated frame header", ErrMalformed)
		}
		n = int(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if f.flags&frameFragment != 0 {
		if len(b) < fragHeaderLen {
			return frame{}, nil, fmt.Errorf("%w: truncated fragment header", ErrMalformed)
		}
		f.index = binary.BigEndian.Uint16(b)
		f.count = binary.BigEndian.Uint16(b[2:])
		f.total = binary.BigEndian.Uint32(b[4:])
		b = b[fragHeaderLen:]
		if n < 0 {
			n = len(b)
		}
		if f.count == 0 || f.index >= f.count || n == 0 || uint32(n) > f.total ||
			(f.flags&frameLastFragment != 0) != (f.index == f.count-1) {
			return frame{}, nil, fmt.Errorf("%w: inconsistent fragment %d/%d", ErrMalformed, f.index, f.count)
		}
	} else if f.flags&frameLastFragment != 0 {
		return frame{}, nil, fmt.Errorf("%w: last-fragment flag without fragment", ErrMalformed)
	}
	if n < 0 {
		n = len(b)
	}
	if len(b) < n || n > 0xFFFF {
		return frame{}, nil, fmt.Errorf("%w: frame length %d exceeds datagram", ErrMalformed, n)
	}
	f.payload = b[:n:n]
	return f, b[n:], nil
}

// elideLength drops the length field of the frame starting at b[start:],
// which must be the last one in b, and marks it frameToEnd.
func elideLength(b []byte, start int) []byte {
	flags := b[start+1]
	if flags&frameToEnd != 0 {
		return b
	}
	at := start + 2
	if hasSeq(flags) {
		at += 2
	}
	b[start+1] = flags | frameToEnd
	copy(b[at:], b[at+2:])
	return b[:len(b)-2]
}
