package transport

import (
	"fmt"
	"math"
	"time"
)

// Redundancy is a channel's policy for protecting small reliable messages
// with parity (see ChannelConfig.Redundancy).
type Redundancy uint8

const (
	// RedundancyAuto (the zero value) is RedundancyAdaptive on Critical
	// channels and RedundancyOff on the others.
	RedundancyAuto Redundancy = iota
	// RedundancyOff sends no parity: a lost message waits for its
	// retransmission.
	RedundancyOff
	// RedundancyAdaptive follows groups of k small messages with m parity
	// frames, choosing k and m from the measured loss, RTT and message
	// rate so that a message rarely waits for a retransmission, and sends
	// none while the path loses (almost) nothing.
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

// protected reports whether the channel sends parity.
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

// Targets of the adaptive policy. A message that parity cannot rebuild
// waits for its retransmission, and on an ordered channel so do the
// messages sent after it until then (about half an RTT of them): the
// share of messages delayed, stallTarget, is the product of the two.
// A group must also complete within a third of the RTT, so that its
// parity arrives well before a retransmission would.
const (
	stallTarget = 0.006
	// lossFloor is the loss rate below which no parity is sent.
	lossFloor = 0.002
)

// parityPlan returns the group size k and the parity rows m for a channel
// whose messages leave every gap, on a path losing a fraction loss of its
// datagrams with smoothed RTT rtt; k = 0 means no parity. Of the plans
// that keep the stall share within stallTarget it takes the one with the
// fewest parity rows per message (then the smallest group); when none
// does, the one with the smallest stall share.
func parityPlan(loss float64, rtt, gap time.Duration, ordered bool) (k, m int) {
	if loss < lossFloor {
		return 0, 0
	}
	maxK := parityMaxK
	stalled := 1.0 // messages a stall delays
	if gap > 0 {
		maxK = min(parityMaxK, max(1, int(rtt/3/gap)))
		if ordered {
			stalled += float64(rtt/2) / float64(gap)
		}
	}
	bestCost, bestRisk := math.Inf(1), math.Inf(1)
	for mm := 1; mm <= parityMaxM; mm++ {
		for kk := 1; kk <= maxK; kk++ {
			risk := stalled * unrecovered(loss, kk, mm)
			cost := float64(mm) / float64(kk)
			switch {
			case risk <= stallTarget && (bestRisk > stallTarget || cost < bestCost):
				k, m, bestCost, bestRisk = kk, mm, cost, risk
			case bestRisk > stallTarget && risk < bestRisk:
				k, m, bestCost, bestRisk = kk, mm, cost, risk
			}
		}
	}
	return k, m
}

// unrecovered is the probability that a given message of a group of k
// with m parity rows is lost and not rebuilt: it is lost, and m or more
// of the other k+m-1 symbols are lost too (independent loss p).
func unrecovered(p float64, k, m int) float64 {
	n := k + m - 1
	below := 0.0 // P(fewer than m of n lost)
	for i := range m {
		below += binomial(n, i) * math.Pow(p, float64(i)) * math.Pow(1-p, float64(n-i))
	}
	return p * max(0, 1-below)
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := range k {
		r = r * float64(n-i) / float64(i+1)
	}
	return r
}

// redundancyLoss returns the loss rate the policy plans for: an average
// over about the last 512 datagrams, so that one quiet stretch does not
// switch parity off, corrected for its start from zero (as Adam's
// moments are), so that parity starts as soon as losses do.
func (s *Session) redundancyLoss() float64 {
	if s.lossSamples == 0 {
		return 0
	}
	return s.lossSlow / (1 - math.Pow(1-1.0/512, float64(s.lossSamples)))
}
