package transport

import (
	"fmt"
	"time"
)

// CongestionControl selects how a connection finds the rate at which it
// may send reliable non-critical data.
type CongestionControl uint8

const (
	// CongestionModel is a model-based controller (BBR-like, the zero
	// value): it estimates the bottleneck bandwidth from the delivery rate
	// of acknowledged datagrams and the propagation delay from the smallest
	// recent RTT, paces at the estimate, keeps about two bandwidth-delay
	// products in flight and probes for more bandwidth one round trip in
	// eight. Loss does not lower its rate, so random loss is not read as
	// congestion; a queue that builds up is, through the RTT and delivery
	// rate it leaves unchanged. Beside a loss-based flow that keeps a deep
	// queue standing, it competes as Reno does (see the package doc).
	CongestionModel CongestionControl = iota
	// CongestionFixedWindow keeps the fixed in-flight window
	// (Config.MaxInFlightBytes) and no pacing beyond the bandwidth budget:
	// for a LAN, where no link is shared with strangers.
	CongestionFixedWindow
)

func (c CongestionControl) String() string {
	switch c {
	case CongestionModel:
		return "model"
	case CongestionFixedWindow:
		return "fixed-window"
	}
	return fmt.Sprintf("congestion(%d)", uint8(c))
}

// rateSample is what an acknowledgement tells the controller: the delivery
// rate measured over the acknowledged datagram's flight, the RTT of the
// newest one, whether the sender was application-limited when it sent it,
// and the delivered count when it was sent (which ends round trips).
type rateSample struct {
	rate           float64 // bytes per second; 0 if unmeasured
	rtt            time.Duration
	appLimited     bool
	priorDelivered uint64
	delivered      uint64
	inFlight       int
}

// congestionController governs the reliable non-critical data of a
// session: how many bytes may be in flight and at what rate they leave.
// Critical data, unreliable data and control messages are never held back
// by it; the bandwidth budget and MaxInFlightBytes stay upper bounds.
type congestionController interface {
	// onAck takes the sample of one acknowledgement.
	onAck(now time.Time, rs rateSample)
	// onLoss takes the size of a windowed datagram declared lost.
	onLoss(bytes int)
	// window is the bytes of windowed datagrams that may be in flight.
	window() int
	// pacingRate is the sending rate in bytes per second; 0 means no pacing.
	pacingRate() float64
	// bandwidth is the estimated bottleneck bandwidth, 0 if unknown.
	bandwidth() float64
}

// fixedWindow is CongestionFixedWindow.
type fixedWindow struct{ bytes int }

func (fixedWindow) onAck(time.Time, rateSample) {}
func (fixedWindow) onLoss(int)                  {}
func (f fixedWindow) window() int               { return f.bytes }
func (fixedWindow) pacingRate() float64         { return 0 }
func (fixedWindow) bandwidth() float64          { return 0 }

func newController(set *settings, now time.Time) congestionController {
	if set.congestion == CongestionFixedWindow {
		return fixedWindow{bytes: set.maxInFlight}
	}
	return newBBR(set.mtu, now)
}

// governed reports whether the congestion controller holds back c's data:
// reliable non-critical channels, over a link that acknowledges.
func (s *Session) governed(c *sendChannel) bool {
	return c.reliable() && c.cfg.Priority != Critical && !s.reliableLink
}

// congestionHolds reports whether c's next frame must wait for the
// controller: its window is full or its pacing is ahead. An aborting
// session sends its last datagram regardless.
func (s *Session) congestionHolds(c *sendChannel, now time.Time) bool {
	if !s.governed(c) || s.aborting {
		return false
	}
	return s.sent.inFlight >= s.cc.window() || s.dlv.paceReadyAt(now).After(now)
}

// governedWaiting reports whether a governed channel has a frame it would
// send now if the controller allowed it; when none has, the sender is
// application-limited.
func (s *Session) governedWaiting(fresh bool, now time.Time) bool {
	userOK := s.state == StateConnected || s.state == StateDisconnecting
	for _, c := range s.send[1:] {
		if !s.governed(c) {
			continue
		}
		if _, ok := c.peek(userOK && fresh, now); ok {
			return true
		}
	}
	return false
}

// setPacing applies the controller's pacing rate. Until it has a bandwidth
// estimate the burst is its initial window, so a new connection's first
// messages leave at once.
func (s *Session) setPacing(now time.Time) {
	burst := 2 * s.set.mtu
	if s.cc.bandwidth() == 0 {
		burst = bbrInitWindowMTU * s.set.mtu
	}
	s.dlv.setRate(s.cc.pacingRate(), burst, now)
}
