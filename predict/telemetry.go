package predict

import "time"

// Cause explains a correction.
type Cause uint8

// Causes. A correction is classified late input, clamped input,
// interaction, else unexplained.
const (
	// CauseLateInput: one of the client's own inputs reached the server
	// after its intended tick (lost and retransmitted, or delayed) and was
	// applied later than predicted.
	CauseLateInput Cause = iota
	// CauseInteraction: another player acted on the client's entity (a
	// hit, a kill), in the authoritative world or in the prediction, or the
	// world did (an event on the entity no input of the client caused, such
	// as a respawn at a point drawn from the shared RNG, which the other
	// players' actions advance).
	CauseInteraction
	// CauseUnexplained: none of the above; with a deterministic game this
	// is a bug.
	CauseUnexplained
	// CauseClampedInput: one of the client's inputs was scheduled beyond
	// the server's MaxAhead, and the server applied it earlier than
	// predicted (it says so in the InputAck and the snapshot). Classified
	// after a late input, before an interaction.
	CauseClampedInput
	NumCauses
)

func (c Cause) String() string {
	switch c {
	case CauseLateInput:
		return "late_input"
	case CauseClampedInput:
		return "clamped_input"
	case CauseInteraction:
		return "interaction"
	case CauseUnexplained:
		return "unexplained"
	}
	return "cause?"
}

// Telemetry is what a client measured. Distributions are Histograms:
// correction magnitudes in world units, replay depth in inputs
// re-simulated per snapshot, input-to-ack latency in milliseconds.
type Telemetry struct {
	RTT           time.Duration // smoothed round trip
	ServerTickLag float64       // predicted tick minus estimated server tick
	Ticks         uint64        // ticks predicted
	InputsSent    uint64
	InputsAcked   uint64
	Snapshots     uint64 // reconciled
	SnapsStale    uint64 // older than the anchor, ignored
	SnapsNoBase   uint64 // deltas against a baseline no longer held
	Corrections   uint64
	ByCause       [NumCauses]uint64
	HardSnaps     uint64
	ParityChecks  uint64 // anchors compared with the prediction of the same tick
	ParityFails   uint64 // ... that differed (each is also a correction)
	Extrapolated  uint64 // views drawn beyond the newest snapshot
	InputsClamped uint64 // inputs the server clamped to its MaxAhead (InputAck flag)

	CorrectionError Histogram // positional error at each correction
	ReplayDepth     Histogram
	InputToAck      Histogram

	ProvisionalSpawns    uint64
	ProvisionalMapped    uint64
	ProvisionalDiscarded uint64
	EffectsFired         uint64 // side effects handed to the game once
	EffectsDeduped       uint64 // server events already played from the prediction
	EffectsDeferred      uint64 // predicted effects left to the server's event (effect memory full)
	EffectsRemembered    int    // effects remembered now, at most EffectMemory

	BytesUp, BytesDown uint64
}
