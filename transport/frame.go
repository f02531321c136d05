package transport

import (
	"encoding/binary"
	"fmt"
)

// Frame header sizes.
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
	knownFrameFlags   = frameReliable | frameOrdered | frameFragment | frameCompressed | frameLastFragment
)

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
	n := frameHeaderLen + payload
	if flags&frameFragment != 0 {
		n += fragHeaderLen
	}
	return n
}

// appendFrame appends the wire form of f to b.
func appendFrame(b []byte, f *frame) []byte {
	b = append(b, byte(f.channel), f.flags)
	b = binary.BigEndian.AppendUint16(b, f.seq)
	b = binary.BigEndian.AppendUint16(b, uint16(len(f.payload)))
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
	if len(b) < frameHeaderLen {
		return frame{}, nil, fmt.Errorf("%w: truncated frame header", ErrMalformed)
	}
	f := frame{channel: ChannelID(b[0]), flags: b[1], seq: binary.BigEndian.Uint16(b[2:])}
	n := int(binary.BigEndian.Uint16(b[4:]))
	b = b[frameHeaderLen:]
	if f.flags&^knownFrameFlags != 0 {
		return frame{}, nil, fmt.Errorf("%w: unknown frame flags %#x", ErrMalformed, f.flags)
	}
	if f.flags&frameFragment != 0 {
		if len(b) < fragHeaderLen {
			return frame{}, nil, fmt.Errorf("%w: truncated fragment header", ErrMalformed)
		}
		f.index = binary.BigEndian.Uint16(b)
		f.count = binary.BigEndian.Uint16(b[2:])
		f.total = binary.BigEndian.Uint32(b[4:])
		b = b[fragHeaderLen:]
		if f.count == 0 || f.index >= f.count || n == 0 || uint32(n) > f.total ||
			(f.flags&frameLastFragment != 0) != (f.index == f.count-1) {
			return frame{}, nil, fmt.Errorf("%w: inconsistent fragment %d/%d", ErrMalformed, f.index, f.count)
		}
	} else if f.flags&frameLastFragment != 0 {
		return frame{}, nil, fmt.Errorf("%w: last-fragment flag without fragment", ErrMalformed)
	}
	if len(b) < n {
		return frame{}, nil, fmt.Errorf("%w: frame length %d exceeds datagram", ErrMalformed, n)
	}
	f.payload = b[:n:n]
	return f, b[n:], nil
}
