package transport

import (
	"fmt"
	"math"
	"time"
)

// Redundancy is a channel's policy for protecting small reliable messages
// with repairs (see ChannelConfig.Redundancy).
type Redundancy uint8

const (
	// RedundancyAuto (the zero value) is RedundancyAdaptive on Critical
	// channels and RedundancyOff on the others.
	RedundancyAuto Redundancy = iota
	// RedundancyOff sends no repairs: a lost message waits for its
	// retransmission.
	RedundancyOff
	// RedundancyAdaptive follows every R small messages with a repair
	// frame covering the messages not yet acknowledged, choosing R from
	// the measured loss, RTT and message rate so that a message rarely
	// waits for a retransmission, and sends none while the path loses
	// (almost) nothing.
	RedundancyAdaptive
)

func (r Redundancy) String() string {
	switch r {
	case RedundancyAuto:
		return "auto"
	case RedundancyOff:
		return "off"
	case RedundancyAdaptive:
		return "adaptive"
	}
	return fmt.Sprintf("redundancy(%d)", uint8(r))
}

// protected reports whether the channel sends repairs.
func (cs *chanSettings) protected() bool {
	if !cs.Reliability.reliable() {
		return false
	}
	switch cs.Redundancy {
	case RedundancyAdaptive:
		return true
	case RedundancyAuto:
		return cs.Priority == Critical && cs.ID != ChannelControl
	}
	return false
}

// The adaptive policy. A repair rebuilds one lost message of its window,
// so repairs must come more often than losses, with a margin for the
// repairs lost too and for losses that bunch: repairsPerLoss repairs per
// expected loss (at 3% loss, one repair every 6 messages). A repair must
// also follow a loss well within the RTT, before a retransmission would
// come: R message intervals span at most a quarter of the RTT.
const (
	repairsPerLoss = 6
	repairMaxEvery = repairWindow / 2
	// lossFloor is the loss rate below which no repair is sent.
	lossFloor = 0.002
)

// repairPlan returns R, the messages between two repairs, for a channel
// whose datagrams carrying its messages leave every gap with perDg
// messages each, on a path losing a fraction loss of its datagrams with
// smoothed RTT rtt; 0 means no repairs. A repair rebuilds one message,
// so R counts messages; but a lost datagram erases perDg of them at once,
// which take perDg repairs, all within the quarter RTT.
func repairPlan(loss float64, rtt, gap time.Duration, perDg float64) int {
	if loss < lossFloor {
		return 0
	}
	r := 1 / (repairsPerLoss * loss)
	if gap > 0 {
		r = min(r, float64(rtt/4)/float64(gap))
	}
	return min(repairMaxEvery, max(1, int(r+0.5)))
}

// redundancyLoss returns the loss rate the policy plans for: an average
// over about the last 512 datagrams, so that one quiet stretch does not
// switch repairs off, corrected for its start from zero (as Adam's
// moments are), so that repairs start as soon as losses do.
func (s *Session) redundancyLoss() float64 {
	if s.lossSamples == 0 {
		return 0
	}
	return s.lossSlow / (1 - math.Pow(1-1.0/512, float64(s.lossSamples)))
}
