package transport

import "fmt"

// ChannelID identifies a logical channel of a connection. Both sides must
// configure the same channels. Channel 0 is reserved for the transport's own
// control messages (handshake and disconnect).
type ChannelID uint8

// ChannelControl is the reserved control channel.
const ChannelControl ChannelID = 0

// Reliability is a channel's delivery guarantee.
type Reliability uint8

const (
	// Unreliable messages are sent once and may be lost or reordered
	// (sounds, particles). Duplicated datagrams are still filtered.
	Unreliable Reliability = iota
	// UnreliableSequenced messages may be lost, but an older message is
	// never delivered after a newer one: the newest supersedes (state
	// updates).
	UnreliableSequenced
	// Reliable messages are retransmitted until acknowledged and delivered
	// exactly once, in arrival order.
	Reliable
	// ReliableOrdered messages are delivered exactly once and in send order.
	ReliableOrdered
)

func (r Reliability) reliable() bool  { return r == Reliable || r == ReliableOrdered }
func (r Reliability) sequenced() bool { return r == UnreliableSequenced || r == ReliableOrdered }

func (r Reliability) String() string {
	switch r {
	case Unreliable:
		return "unreliable"
	case UnreliableSequenced:
		return "unreliable-sequenced"
	case Reliable:
		return "reliable"
	case ReliableOrdered:
		return "reliable-ordered"
	}
	return fmt.Sprintf("reliability(%d)", uint8(r))
}

// Priority is a channel's scheduling class. Levels are served in strict
// order: a datagram carries Bulk data only when no higher level has
// anything sendable. The zero value means Normal.
type Priority uint8

const (
	priorityDefault Priority = iota
	// Critical is for input and corrections; it is never delayed by lower
	// levels and has a reserved share of the bandwidth budget.
	Critical
	// High is for actions, block changes, UI.
	High
	// Normal is for entity updates and effects.
	Normal
	// Low is for background streaming such as chunks.
	Low
	// Bulk is for asset downloads; it fills the remaining bandwidth, up to
	// the budget's BulkMaxFraction.
	Bulk
)

// numPriorities is the number of scheduling levels (Critical..Bulk).
const numPriorities = int(Bulk)

func (p Priority) String() string {
	switch p {
	case priorityDefault, Normal:
		return "normal"
	case Critical:
		return "critical"
	case High:
		return "high"
	case Low:
		return "low"
	case Bulk:
		return "bulk"
	}
	return fmt.Sprintf("priority(%d)", uint8(p))
}

// CompressionPolicy says when a channel compresses its messages with zstd.
type CompressionPolicy uint8

const (
	// CompressNever sends payloads as they are (already compressed data).
	CompressNever CompressionPolicy = iota
	// CompressAlways compresses every non-empty message.
	CompressAlways
	// CompressAboveThreshold compresses messages larger than the channel's
	// CompressionThreshold.
	CompressAboveThreshold
)

// ChannelConfig describes one channel. The zero value (apart from ID) is an
// unreliable, Normal-priority channel whose messages fit one datagram.
type ChannelConfig struct {
	ID   ChannelID
	Name string // for logs and stats

	Reliability Reliability
	Priority    Priority
	// Weight shares a priority level among its channels by deficit round
	// robin: two channels of weights 2 and 1 get 2/3 and 1/3 of what the
	// level is allowed to send. 0 means 1.
	Weight int

	Compression          CompressionPolicy
	CompressionThreshold int // bytes, for CompressAboveThreshold

	// AllowFragmentation lets messages exceed one datagram; they are split
	// into fragments and reassembled by the receiver.
	AllowFragmentation bool
	// MaxMessageSize is the largest message the channel accepts, before
	// compression. 0 means Config.MaxMessageSize for fragmenting channels
	// and the payload room of one datagram otherwise.
	MaxMessageSize int

	// MaxUnackedBytes bounds the bytes of a reliable channel that are
	// queued or sent but not yet acknowledged; Send returns ErrBackpressure
	// beyond it. 0 means 4 MiB. One message is always admitted into an
	// empty channel, however large.
	MaxUnackedBytes int
	// MaxQueuedMessages bounds the messages waiting for their first
	// transmission: unreliable channels drop the oldest, reliable channels
	// return ErrBackpressure. 0 means no count limit.
	MaxQueuedMessages int
	// BufferLimit bounds the bytes waiting for their first transmission,
	// with the same overflow rule as MaxQueuedMessages. 0 means 4 MiB.
	BufferLimit int

	// Redundancy protects the channel's small reliable messages (up to
	// 256 bytes, uncompressed) with parity frames sized to the measured
	// loss, RTT and message rate, so that a lost one is rebuilt without a
	// round trip. The zero value, RedundancyAuto, does so on Critical
	// channels only. A receiver rebuilds messages on the channels it
	// configures the same way.
	Redundancy Redundancy
}

// Channel ids of the standard channel set (transport seed §4.2).
const (
	ChannelInput    ChannelID = 1
	ChannelActions  ChannelID = 2
	ChannelEntities ChannelID = 3
	ChannelEffects  ChannelID = 4
	ChannelWorld    ChannelID = 5
	ChannelUI       ChannelID = 6
	ChannelAssets   ChannelID = 7
	ChannelChat     ChannelID = 8
)

// StandardChannels returns the standard channel set of a game connection:
// input, actions, entities, effects, world, UI, assets and chat. A zero
// Config uses it.
func StandardChannels() []ChannelConfig {
	return []ChannelConfig{
		{ID: ChannelInput, Name: "input", Reliability: ReliableOrdered, Priority: Critical, MaxMessageSize: 256},
		{ID: ChannelActions, Name: "actions", Reliability: ReliableOrdered, Priority: High, MaxMessageSize: 512},
		{ID: ChannelEntities, Name: "entities", Reliability: Reliable, Priority: Normal,
			Compression: CompressAboveThreshold, CompressionThreshold: 128},
		{ID: ChannelEffects, Name: "effects", Reliability: Unreliable, Priority: Normal, MaxQueuedMessages: 64},
		{ID: ChannelWorld, Name: "world", Reliability: ReliableOrdered, Priority: Low,
			Compression: CompressAlways, AllowFragmentation: true},
		{ID: ChannelUI, Name: "ui", Reliability: ReliableOrdered, Priority: High,
			Compression: CompressAboveThreshold, CompressionThreshold: 256},
		{ID: ChannelAssets, Name: "assets", Reliability: Reliable, Priority: Bulk,
			Compression: CompressAboveThreshold, CompressionThreshold: 1024, AllowFragmentation: true},
		{ID: ChannelChat, Name: "chat", Reliability: ReliableOrdered, Priority: Normal, MaxMessageSize: 4096},
	}
}

// controlChannel is the configuration of the reserved channel 0.
func controlChannel() ChannelConfig {
	return ChannelConfig{ID: ChannelControl, Name: "control", Reliability: ReliableOrdered,
		Priority: Critical, MaxMessageSize: 512}
}
