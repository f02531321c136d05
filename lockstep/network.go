package lockstep

import (
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// NetworkModel is how a game loop exchanges orders in lockstep. It is
// lockstep-shaped: PollTick returns a confirmed tick or nothing yet.
// Implementations are not required to be safe for concurrent use; a game
// loop calls them from one goroutine.
type NetworkModel interface {
	// SubmitOrder queues an order of the local player for the next tick it
	// can still reach.
	SubmitOrder(order protocol.TimestampedOrder)
	// PollTick returns the next confirmed tick, or false if it has not
	// arrived yet.
	PollTick() (protocol.TickOrders, bool)
	// ReportSyncHash reports the local state hash after applying tick.
	ReportSyncHash(tick uint64, hash uint64)
	// Status reports where the connection is in its life.
	Status() Status
	// Diagnostics reports latency, loss and timing figures.
	Diagnostics() Diagnostics
}

// Status is the state of a network model.
type Status uint8

// Network model states.
const (
	StatusConnecting  Status = iota // joining a room, before calibration
	StatusCalibrating               // measuring latency before the match starts
	StatusPlaying                   // ticks are flowing
	StatusDesynced                  // the relay reported diverging state hashes
	// A rejoining player (or an observer joining a running match) goes
	// through Authorized, Downloading and CatchingUp to Playing.
	StatusAuthorized   // back in its seat, waiting for a snapshot transfer
	StatusDownloading  // receiving a donor's snapshot through the relay
	StatusCatchingUp   // the snapshot is loaded; applying the frames since
	StatusEnded        // the match is over
	StatusDisconnected // the connection is gone
)

var statusNames = [...]string{"connecting", "calibrating", "playing", "desynced", "authorized", "downloading", "catching-up", "ended", "disconnected"}

// String returns the status in lower case.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// Diagnostics are the figures a network model reports for overlays, logs
// and summaries. Fields a model cannot measure stay zero.
type Diagnostics struct {
	Tick       uint64        // last confirmed tick handed out
	RTT        time.Duration // smoothed round-trip time to the relay
	Loss       float64       // fraction of datagrams lost, 0..1
	RunAhead   int           // ticks of input delay the relay asks for
	OrdersSent int           // orders submitted
	LateOrders int           // submissions the relay received after their deadline
	LateTicks  int           // ticks the relay had no on-time submission for
	LastLateBy time.Duration // how late the latest late submission was
	// LateNotice is the player-facing indicator of late orders, "Late
	// order (+34 ms)" (empty until the first): it changes at most once
	// every LateNoticeEvery, showing the latest of the late orders
	// reported since it last changed, LateNoticeCount of them.
	LateNotice      string
	LateNoticeCount int
	Strikes         int    // lateness strikes the relay counted
	Desyncs         int    // desyncs the relay reported
	DesyncTick      uint64 // tick of the first reported desync
	BytesSent       uint64 // bytes sent on the wire
	BytesReceived   uint64 // bytes received on the wire
	// Clock figures of a relay client: its estimate of the relay clock
	// against its own (relay = client + ClockOffset), how far that moved
	// from the calibrated offset during play, the measured drift of the
	// client clock in parts per million (positive: it runs fast), and how
	// often the estimate stepped because the clock jumped.
	ClockOffset     time.Duration
	ClockCorrection time.Duration
	ClockDriftPPM   float64
	ClockSteps      int
}
