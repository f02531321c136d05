package msg

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/wire"
)

// Message types of the relay protocol. High-frequency messages take one
// byte of type prefix, periodic ones two, match set-up messages three (see
// the wire package for the prefix code).
const (
	TypeOrderSubmit     wire.MessageType = 0x20
	TypeTickFrame       wire.MessageType = 0x21
	TypeSyncHash        wire.MessageType = 0x22
	TypeTimingFeedback  wire.MessageType = 0x8040
	TypeClientMetrics   wire.MessageType = 0x8041
	TypeDesyncDetected  wire.MessageType = 0x8042
	TypePlayerRemoved   wire.MessageType = 0x8043
	TypeLateNotice      wire.MessageType = 0x8044
	TypeCalibrationPing wire.MessageType = 0xC00040
	TypeCalibrationPong wire.MessageType = 0xC00041
	TypeMatchTiming     wire.MessageType = 0xC00042
	TypeSeedCommit      wire.MessageType = 0xC00043
	TypeSeedCommitments wire.MessageType = 0xC00044
	TypeSeedReveal      wire.MessageType = 0xC00045
	TypeSeedResult      wire.MessageType = 0xC00046
)

// Message is one relay protocol message. The set of implementations is
// closed: the pointer types of this package.
type Message interface {
	// Type is the message's wire type.
	Type() wire.MessageType
}

// OrderSubmit carries one player's orders for one tick window, sent by the
// client when the window closes (an empty submission is sent too: it is the
// player's presence and heartbeat for the tick). Client → relay.
type OrderSubmit struct {
	// Tick is the tick window the client issued the orders in, by its
	// estimate of the relay clock.
	Tick uint64
	// SentUs is the client's estimate of the relay clock, in microseconds,
	// when it sent the submission.
	SentUs uint64
	// AckTick and Token echo the newest TickFrame the client has applied
	// and that frame's liveness token.
	AckTick uint64
	Token   uint32
	// AckDelayUs is the time from receiving frame AckTick to sending this
	// submission; the relay subtracts it from its RTT sample.
	AckDelayUs uint32
	// Orders are the player's orders; SubTickTime is the client's hint of
	// when within the window each was issued.
	Orders []protocol.TimestampedOrder
	// Size is the message's size on the wire in bytes. Decode sets it; it
	// is not encoded. The relay charges it against the bandwidth throttle.
	Size int
}

// Frame flags.
const (
	// FlagSyncRequest asks every client to report its state hash after
	// applying the frame's tick (SyncHash).
	FlagSyncRequest uint8 = 1 << iota
	validFrameFlags       = FlagSyncRequest
)

// TickFrame is the relay's canonical broadcast of one tick. Relay → all.
type TickFrame struct {
	Tick uint64
	// Token is the liveness nonce the client echoes in its submissions
	// once it has applied this frame.
	Token uint32
	// Flags is a set of Flag constants.
	Flags uint8
	// RunAhead is the match's shared run-ahead in ticks.
	RunAhead uint8
	// Removals is the removal schedule: players leaving at a tick not yet
	// applied. Every frame repeats it until the removal takes effect.
	Removals []Removal
	// Orders are the tick's orders with relay-normalised sub-tick times,
	// in chronological order.
	Orders []protocol.TimestampedOrder
}

// RemovalReason says why a player leaves the match.
type RemovalReason uint8

// Removal reasons.
const (
	ReasonTimeout   RemovalReason = iota // heartbeat timeout
	ReasonLagSwitch                      // too many late-delivery strikes
	ReasonFrozen                         // stopped echoing liveness tokens
	ReasonNoCommit                       // no seed commitment in time
	ReasonNoReveal                       // no (or a false) seed reveal in time
	ReasonLeft                           // left of its own accord, or removed by the embedder
	numReasons
)

var reasonNames = [numReasons]string{"timeout", "lag-switch", "frozen", "no-commit", "no-reveal", "left"}

func (r RemovalReason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return "reason?"
}

// Removal schedules a player's removal: every client removes the player
// when it applies tick AtTick, so all remove it on the same tick.
type Removal struct {
	Player protocol.PlayerID
	AtTick uint64
	Reason RemovalReason
}

// PlayerRemoved announces a removal outside the tick stream: before the
// first tick (AtTick 0) or as an immediate notice of a scheduled one.
// Relay → all.
type PlayerRemoved struct{ Removal }

// SyncHash reports the client's state hash after applying Tick.
// Client → relay.
type SyncHash struct {
	Tick uint64
	Hash uint64
}

// DesyncDetected tells every client that the state hashes reported for
// Tick disagree. Relay → all.
type DesyncDetected struct {
	Tick uint64
}

// TimingFeedback tells a client how its submissions arrived during the last
// feedback window. Relay → one client.
type TimingFeedback struct {
	// AvgArrivalDeltaUs is the mean margin by which submissions beat the
	// tick deadline: positive is early, negative late.
	AvgArrivalDeltaUs int32
	// LateCount is the submissions that missed the deadline.
	LateCount uint16
	// JitterUs is the mean absolute deviation of the arrival margin.
	JitterUs uint32
	// RecommendedOffsetUs is how much earlier (positive) or later
	// (negative) the client should send to keep a safe margin.
	RecommendedOffsetUs int32
	// DeadlineUs is the tick deadline in force for the frames that follow
	// (QoS adaptation moves it): the client times the frames' arrival
	// against it to track its clock offset.
	DeadlineUs uint32
}

// ClientMetrics is a client's periodic report of its own performance.
// Client → relay.
type ClientMetrics struct {
	AvgLatencyUs     uint32 // rolling average RTT to the relay
	AvgFPS           uint16 // rendering frame rate
	ArrivalCushion   int16  // ticks by which frames arrive before needed
	TickProcessingUs uint32 // time to simulate one tick
}

// LateNotice tells a client that its submission for Tick missed the
// tick's deadline by LateByUs and was dropped, and how many lag-switch
// strikes it holds now: the player-facing timing feedback. Relay → one
// client.
type LateNotice struct {
	Tick     uint64
	LateByUs uint32
	Strikes  uint16
}

// CalibrationPing is a timing probe during loading. Relay → one client.
type CalibrationPing struct {
	Seq         uint16
	RelaySendUs uint64 // relay clock at send
}

// CalibrationPong answers a ping with the client's clock at receipt and at
// send. Client → relay.
type CalibrationPong struct {
	Seq          uint16
	RelaySendUs  uint64 // echoed
	ClientRecvUs uint64
	ClientSendUs uint64
}

// MatchTiming is the outcome of calibration for one client. Relay → one
// client.
type MatchTiming struct {
	TickIntervalUs uint32
	RunAhead       uint8  // shared initial run-ahead
	DeadlineUs     uint32 // tick deadline after the window closes
	// ClockOffsetUs maps the client's clock onto the relay's:
	// relay = client + ClockOffsetUs.
	ClockOffsetUs int64
	// SubmitOffsetUs is how much earlier than the window end the client
	// should send (timing assistance only).
	SubmitOffsetUs int32
}

// SeedCommit is a player's commitment SHA-256(contribution || nonce).
// Client → relay.
type SeedCommit struct {
	Commitment [32]byte
}

// SeedCommitments is every player's commitment, broadcast once all are in;
// clients then reveal. Relay → all.
type SeedCommitments struct {
	Commitments []Commitment
}

// Commitment is one player's seed commitment.
type Commitment struct {
	Player     protocol.PlayerID
	Commitment [32]byte
}

// SeedReveal opens a commitment. Client → relay.
type SeedReveal struct {
	Contribution [32]byte
	Nonce        [16]byte
}

// SeedResult is the agreed game seed and the relay time at which tick 0's
// window opens. Relay → all.
type SeedResult struct {
	Seed    uint64
	StartUs uint64
}

func (*OrderSubmit) Type() wire.MessageType     { return TypeOrderSubmit }
func (*TickFrame) Type() wire.MessageType       { return TypeTickFrame }
func (*SyncHash) Type() wire.MessageType        { return TypeSyncHash }
func (*TimingFeedback) Type() wire.MessageType  { return TypeTimingFeedback }
func (*ClientMetrics) Type() wire.MessageType   { return TypeClientMetrics }
func (*DesyncDetected) Type() wire.MessageType  { return TypeDesyncDetected }
func (*PlayerRemoved) Type() wire.MessageType   { return TypePlayerRemoved }
func (*LateNotice) Type() wire.MessageType      { return TypeLateNotice }
func (*CalibrationPing) Type() wire.MessageType { return TypeCalibrationPing }
func (*CalibrationPong) Type() wire.MessageType { return TypeCalibrationPong }
func (*MatchTiming) Type() wire.MessageType     { return TypeMatchTiming }
func (*SeedCommit) Type() wire.MessageType      { return TypeSeedCommit }
func (*SeedCommitments) Type() wire.MessageType { return TypeSeedCommitments }
func (*SeedReveal) Type() wire.MessageType      { return TypeSeedReveal }
func (*SeedResult) Type() wire.MessageType      { return TypeSeedResult }

// IsSample reports whether m is a sample whose stale copies are
// worthless (calibration pings and pongs, client metrics): it travels on
// an unreliable, sequenced lane (server/lanes.Of).
func IsSample(m Message) bool {
	switch m.(type) {
	case *CalibrationPing, *CalibrationPong, *ClientMetrics:
		return true
	}
	return false
}
