package relay

import (
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// Event is something the core reports for logs, metrics and replays. The
// set of implementations is closed: the event types of this package.
type Event interface{ isEvent() }

// CalibrationDone: match-start calibration finished.
type CalibrationDone struct{ Calibration MatchCalibration }

// SeedAgreed: the commit-reveal exchange produced the game seed; tick 0's
// window opens at Start.
type SeedAgreed struct {
	Seed  uint64
	Start time.Duration
}

// LateSubmission: a submission arrived after its tick was broadcast; its
// orders were dropped.
type LateSubmission struct {
	Player protocol.PlayerID
	Tick   uint64
	LateBy time.Duration
}

// Strike: the player earned a strike.
type Strike struct {
	Player  protocol.PlayerID
	Strikes int
	Reason  string
}

// Suspicious: the player's timestamp claims fell outside its skew budget.
type Suspicious struct {
	Player protocol.PlayerID
	Tick   uint64
	Claims int // in this submission
	Total  int // over the match
}

// OrdersDropped: orders of a submission were not forwarded.
type OrdersDropped struct {
	Player protocol.PlayerID
	Tick   uint64
	Reason DropReason
	Count  int
}

// RemovalScheduled: the player leaves at Removal.AtTick (0 before play).
type RemovalScheduled struct{ msg.Removal }

// PlayerRemoved: the removal took effect.
type PlayerRemoved struct{ msg.Removal }

// QosAdjustmentEvent records a change of the match-global timing, for
// replays and telemetry.
type QosAdjustmentEvent struct {
	Tick                     uint64
	OldDeadline, NewDeadline time.Duration
	OldRunAhead, NewRunAhead uint8
	LateRateBpsEWMA          uint16
	Reason                   QosAdjustReason
}

// QosAdjustReason says why the timing changed.
type QosAdjustReason uint8

// Adjustment reasons.
const (
	RaiseLateRate QosAdjustReason = iota
	LowerStableWindow
)

func (r QosAdjustReason) String() string {
	if r == RaiseLateRate {
		return "raise-late-rate"
	}
	return "lower-stable-window"
}

// HostStall: the relay itself did not run from At for Duration (a
// garbage-collection pause, CPU starvation, a paused VM); the tick
// schedule now runs Lag behind and catches up at twice the tick rate.
type HostStall struct {
	At, Duration, Lag time.Duration
}

// Desync: the hashes reported for Tick disagree.
type Desync struct {
	Tick   uint64
	Hashes []PlayerHash
}

// DesyncDiagnosed: the desync walk of Report.Tick ended; JSON is the
// report's document (what the relay sends to every client).
type DesyncDiagnosed struct {
	Report DesyncReport
	JSON   []byte
}

// PlayerHash is one player's reported state hash.
type PlayerHash struct {
	Player protocol.PlayerID
	Hash   uint64
}

func (CalibrationDone) isEvent()    {}
func (SeedAgreed) isEvent()         {}
func (LateSubmission) isEvent()     {}
func (Strike) isEvent()             {}
func (Suspicious) isEvent()         {}
func (OrdersDropped) isEvent()      {}
func (RemovalScheduled) isEvent()   {}
func (PlayerRemoved) isEvent()      {}
func (QosAdjustmentEvent) isEvent() {}
func (HostStall) isEvent()          {}
func (Desync) isEvent()             {}
func (DesyncDiagnosed) isEvent()    {}
