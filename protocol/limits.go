package protocol

// Default protocol limits.
const (
	// DefaultMaxOrdersPerPlayerPerTick is the hard ceiling on one player's
	// orders in one tick, the last of the relay's three rate-control layers.
	DefaultMaxOrdersPerPlayerPerTick = 256
	// DefaultMaxOrdersPerTick caps all players' orders in one tick
	// (64 players at the per-player ceiling), so a tick continued over
	// many packets cannot grow without bound.
	DefaultMaxOrdersPerTick = 64 * DefaultMaxOrdersPerPlayerPerTick
	// DefaultMaxUnitsPerOrder caps the unit ids in one Move or Attack.
	DefaultMaxUnitsPerOrder = 64
	// DefaultMaxCustomPayload caps a Custom order's payload in bytes.
	DefaultMaxCustomPayload = 256
	// DefaultMaxPacketSize keeps an order packet inside one minimum-MTU IP
	// datagram (576 bytes less IP and UDP headers and transport framing).
	DefaultMaxPacketSize = 476
)

// ProtocolLimits bounds what a peer may send. The zero value means the
// defaults above; a field left zero takes its default.
type ProtocolLimits struct {
	MaxOrdersPerPlayerPerTick int
	MaxOrdersPerTick          int
	MaxUnitsPerOrder          int
	MaxCustomPayload          int
	MaxPacketSize             int
}

// WithDefaults returns l with every zero field set to its default.
func (l ProtocolLimits) WithDefaults() ProtocolLimits {
	if l.MaxOrdersPerPlayerPerTick <= 0 {
		l.MaxOrdersPerPlayerPerTick = DefaultMaxOrdersPerPlayerPerTick
	}
	if l.MaxOrdersPerTick <= 0 {
		l.MaxOrdersPerTick = DefaultMaxOrdersPerTick
	}
	if l.MaxUnitsPerOrder <= 0 {
		l.MaxUnitsPerOrder = DefaultMaxUnitsPerOrder
	}
	if l.MaxCustomPayload <= 0 {
		l.MaxCustomPayload = DefaultMaxCustomPayload
	}
	if l.MaxPacketSize <= 0 {
		l.MaxPacketSize = DefaultMaxPacketSize
	}
	return l
}
