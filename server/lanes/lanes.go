package lanes

import (
	"time"

	"github.com/tickwire/tickwire/transport"
)

// The lanes of a connection to a tickwire server. Lockstep uses Orders
// and Control; the server-authoritative models (fog-authoritative,
// prediction, state sync) also send their state on State.
const (
	Orders  transport.ChannelID = 1
	Control transport.ChannelID = 2
	State   transport.ChannelID = 3
)

// MaxStateMessageSize bounds a message of the State lane: a state update,
// snapshot or partition (a fog StateUpdate fits one datagram; bigger
// snapshots fragment).
const MaxStateMessageSize = 256 << 10

// Timing of TransportConfig.
const (
	// DefaultFlushInterval is the transport's Nagle-style flush interval.
	// The relay and the client flush explicitly after each batch of
	// messages; the interval only catches stragglers.
	DefaultFlushInterval = 5 * time.Millisecond
	// DefaultAckDelay is the transport's acknowledgement delay. Relay
	// traffic flows both ways at the tick rate (a tick frame down, an
	// order submission up), so a delay just longer than a tick lets each
	// acknowledgement ride on the next datagram the other way instead of
	// a datagram of its own: at 30 ticks per second this halves the
	// datagrams of a game. 50 ms covers the tick interval up to 20 ticks
	// per second; it also lengthens the retransmission timeout by as much,
	// which matters little as small orders ride in two datagrams from
	// their first transmission on.
	DefaultAckDelay = 50 * time.Millisecond
)

// MaxMessageSize is the largest message of the orders lane: the largest
// TickFrame of a match of relay.MaxPlayers under the default protocol
// limits, lockstep/msg's Codec.MaxTickFrameSize(relay.MaxPlayers) (a test
// keeps the two equal; the table does not import the relay, so that every
// network model can use it without linking lockstep code).
func MaxMessageSize() int { return 7_881_627 }

// Channels returns the three lanes. The orders lane queues and keeps
// unacknowledged up to two of the largest frames, so a busy tick never
// meets backpressure by its size alone. The state lane is unreliable:
// each model re-sends what was lost its own way (acknowledged baselines),
// so a retransmission of stale state would only cost bandwidth.
func Channels() []transport.ChannelConfig {
	size := MaxMessageSize()
	return []transport.ChannelConfig{
		{ID: Orders, Name: "orders", Reliability: transport.ReliableOrdered, Priority: transport.Critical,
			AllowFragmentation: true, MaxMessageSize: size, BufferLimit: 2 * size, MaxUnackedBytes: 2 * size},
		{ID: Control, Name: "control", Reliability: transport.UnreliableSequenced, Priority: transport.Critical,
			BufferLimit: 2 << 10},
		{ID: State, Name: "state", Reliability: transport.Unreliable, Priority: transport.High, Weight: 2,
			AllowFragmentation: true, MaxMessageSize: MaxStateMessageSize, BufferLimit: 2 * MaxStateMessageSize,
			Compression: transport.CompressAboveThreshold, CompressionThreshold: 1024},
	}
}

// TransportConfig is the transport configuration of relay connections on
// both ends: the lanes, the flush interval and the acknowledgement delay.
// Reassembly holds at most one of the largest frames at a time.
func TransportConfig() transport.Config {
	return transport.Config{Channels: Channels(), FlushInterval: DefaultFlushInterval, AckDelay: DefaultAckDelay,
		MaxReassemblyBytes: transport.ReassemblyCost(MaxMessageSize())}
}

// Of is the lane a relay message travels on: samples (msg.IsSample:
// calibration pings and pongs, client metrics) on the control lane, where
// a stale copy is dropped, everything else on the orders lane.
func Of(sample bool) transport.ChannelID {
	if sample {
		return Control
	}
	return Orders
}
