package transport

import (
	"encoding/binary"
	"fmt"
	"time"
)

// protocolVersion is the first byte of every datagram.
const protocolVersion = 2

// Header sizes: the fixed part every datagram starts with, the
// acknowledgement section that follows it when flagAck is set, and the
// largest header (what the MTU must leave room for).
const (
	headerMinLen  = 10
	ackSectionLen = 14
	headerLen     = headerMinLen + ackSectionLen
)

// Datagram header flags.
const (
	// flagPing asks for an acknowledgement even when the datagram carries
	// no frames (keepalive, RTT probe).
	flagPing = 1 << 0
	// flagAck says the acknowledgement section (peer delay, latest
	// received, ack vector) follows the fixed header.
	flagAck          = 1 << 1
	knownHeaderFlags = flagPing | flagAck
)

// Peer delay encoding: units of 8 µs, so 16 bits span 524 ms; the all-ones
// value means "unknown or longer", and the receiver then takes no RTT sample.
const (
	delayUnit    = 8 * time.Microsecond
	delayUnknown = 0xFFFF
)

// header is the start of every datagram.
type header struct {
	flags  uint8
	connID uint32
	seq    uint32 // this datagram's sequence
	// The acknowledgement section, present on the wire only with flagAck.
	delay uint16 // peer delay in delayUnit, delayUnknown if none
	// Ack vector: bit N of ackMask set means datagram ackLatest-N was
	// received. A zero mask carries no acknowledgement.
	ackLatest uint32
	ackMask   uint64
}

// size is the encoded size of h.
func (h *header) size() int {
	if h.flags&flagAck != 0 {
		return headerLen
	}
	return headerMinLen
}

// appendHeader appends the wire form of h to b; the acknowledgement
// section only with flagAck.
func appendHeader(b []byte, h header) []byte {
	b = append(b, protocolVersion, h.flags)
	b = binary.BigEndian.AppendUint32(b, h.connID)
	b = binary.BigEndian.AppendUint32(b, h.seq)
	if h.flags&flagAck == 0 {
		return b
	}
	b = binary.BigEndian.AppendUint16(b, h.delay)
	b = binary.BigEndian.AppendUint32(b, h.ackLatest)
	return binary.BigEndian.AppendUint64(b, h.ackMask)
}

// parseHeader decodes the header at the start of b and returns the rest.
// A header without an acknowledgement section has a zero ack vector.
func parseHeader(b []byte) (header, []byte, error) {
	if len(b) < headerMinLen {
		return header{}, nil, fmt.Errorf("%w: %d bytes, header needs %d", ErrMalformed, len(b), headerMinLen)
	}
	if b[0] != protocolVersion {
		return header{}, nil, fmt.Errorf("%w: version %d", ErrMalformed, b[0])
	}
	h := header{
		flags:  b[1],
		connID: binary.BigEndian.Uint32(b[2:]),
		seq:    binary.BigEndian.Uint32(b[6:]),
	}
	if h.flags&^knownHeaderFlags != 0 {
		return header{}, nil, fmt.Errorf("%w: unknown header flags %#x", ErrMalformed, h.flags)
	}
	if h.flags&flagAck == 0 {
		return h, b[headerMinLen:], nil
	}
	if len(b) < headerLen {
		return header{}, nil, fmt.Errorf("%w: %d bytes, header with acknowledgement needs %d", ErrMalformed, len(b), headerLen)
	}
	h.delay = binary.BigEndian.Uint16(b[10:])
	h.ackLatest = binary.BigEndian.Uint32(b[12:])
	h.ackMask = binary.BigEndian.Uint64(b[16:])
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

// peekConnID returns the connection id of a datagram, or of a version
// refusal, without parsing it.
func peekConnID(b []byte) (uint32, bool) {
	if _, _, id, ok := parseVersionRefusal(b); ok {
		return id, true
	}
	if len(b) < headerMinLen || b[0] != protocolVersion {
		return 0, false
	}
	return binary.BigEndian.Uint32(b[2:]), true
}
