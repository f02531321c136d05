package transport

import (
	"encoding/binary"
	"fmt"
	"time"
)

// protocolVersion is the first byte of every datagram.
const protocolVersion = 1

// headerLen is the size of the datagram header.
const headerLen = 24

// Datagram header flags.
const (
	// flagPing asks for an acknowledgement even when the datagram carries
	// no frames (keepalive, RTT probe).
	flagPing         = 1 << 0
	knownHeaderFlags = flagPing
)

// Peer delay encoding: units of 8 µs, so 16 bits span 524 ms; the all-ones
// value means "unknown or longer", and the receiver then takes no RTT sample.
const (
	delayUnit    = 8 * time.Microsecond
	delayUnknown = 0xFFFF
)

// header is the fixed part of every datagram.
type header struct {
	flags  uint8
	delay  uint16 // peer delay in delayUnit, delayUnknown if none
	connID uint32
	seq    uint32 // this datagram's sequence
	// Ack vector: bit N of ackMask set means datagram ackLatest-N was
	// received. A zero mask carries no acknowledgement.
	ackLatest uint32
	ackMask   uint64
}

// appendHeader appends the wire form of h to b.
func appendHeader(b []byte, h header) []byte {
	b = append(b, protocolVersion, h.flags)
	b = binary.BigEndian.AppendUint16(b, h.delay)
	b = binary.BigEndian.AppendUint32(b, h.connID)
	b = binary.BigEndian.AppendUint32(b, h.seq)
	b = binary.BigEndian.AppendUint32(b, h.ackLatest)
	return binary.BigEndian.AppendUint64(b, h.ackMask)
}

// parseHeader decodes the header at the start of b and returns the rest.
func parseHeader(b []byte) (header, []byte, error) {
	if len(b) < headerLen {
		return header{}, nil, fmt.Errorf("%w: %d bytes, header needs %d", ErrMalformed, len(b), headerLen)
	}
	if b[0] != protocolVersion {
		return header{}, nil, fmt.Errorf("%w: version %d", ErrMalformed, b[0])
	}
	h := header{
		flags:     b[1],
		delay:     binary.BigEndian.Uint16(b[2:]),
		connID:    binary.BigEndian.Uint32(b[4:]),
		seq:       binary.BigEndian.Uint32(b[8:]),
		ackLatest: binary.BigEndian.Uint32(b[12:]),
		ackMask:   binary.BigEndian.Uint64(b[16:]),
	}
	if h.flags&^knownHeaderFlags != 0 {
		return header{}, nil, fmt.Errorf("%w: unknown header flags %#x", ErrMalformed, h.flags)
	}
	return h, b[headerLen:], nil
}

// encodeDelay converts a peer delay to its wire form.
func encodeDelay(d time.Duration) uint16 {
	if d < 0 {
		d = 0
	}
	u := d / delayUnit
	if u >= delayUnknown {
		return delayUnknown
	}
	return uint16(u)
}

// peekConnID returns the connection id of a datagram without parsing it.
func peekConnID(b []byte) (uint32, bool) {
	if len(b) < headerLen || b[0] != protocolVersion {
		return 0, false
	}
	return binary.BigEndian.Uint32(b[4:]), true
}
