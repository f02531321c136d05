package relay

import "time"

// QoS adaptation steps: a raise adds at most 10 ms to the deadline, a
// lowering takes 5 ms off, as in the seed design.
const (
	qosRaiseStep = 10 * time.Millisecond
	qosLowerStep = 5 * time.Millisecond
	// qosExcludeWindows is how long a player struck for a stall loss
	// recovery does not explain is left out of the late-rate computation.
	qosExcludeWindows = 4
)

// QosAdaptationState is the in-match adaptation's memory, updated once per
// QoS window.
type QosAdaptationState struct {
	EWMALateRateBps         uint16
	ConsecutiveRaiseWindows uint8
	ConsecutiveLowerWindows uint8
	CooldownRemaining       uint8
}

// evaluateQosWindow is the seed design's evaluate_qos_window, called after
// tick k closes a window:
//
//  1. raw late rate = late ticks / expected ticks across the players, in
//     basis points, each player's late count capped at
//     PerPlayerInfluenceCapBps of the window's total late count, players
//     struck for an unexplained stall left out;
//  2. EWMA in q15: ewma = (alpha*raw + (32768-alpha)*ewma) / 32768;
//  3. during cooldown, count the window down and stop;
//  4. above RaiseLateRateBps for RaiseWindows windows in a row: deadline +
//     10 ms and run-ahead + MaxStepPerUpdate, capped by the profile, then
//     cooldown;
//  5. below LowerLateRateBps with a healthy arrival cushion (every
//     player's mean margin still at least twice its spread plus 2 ms once
//     the 5 ms step is taken, the margin TimingFeedback aims for) for
//     LowerWindows windows in a row: deadline - 5 ms and run-ahead -
//     MaxStepPerUpdate, floored by the profile, then cooldown;
//  6. report an event if anything changed.
func (c *Core) evaluateQosWindow(k uint64) (QosAdjustmentEvent, bool) {
	qp := &c.cfg.Profile
	qs := &c.qos

	totalLate, totalTicks := 0, 0
	c.active(func(p *player) {
		if p.excluded == 0 && !p.win.flagged {
			totalLate += p.win.late
			totalTicks += p.win.ticks
		}
	})
	capped := 0
	share := (totalLate*int(qp.PerPlayerInfluenceCapBps) + 9_999) / 10_000 // rounded up
	cushion := true
	c.active(func(p *player) {
		if p.excluded == 0 && !p.win.flagged {
			capped += min(p.win.late, share)
			if !p.win.cushioned() {
				cushion = false
			}
		}
	})
	qs.EWMALateRateBps = ewmaBps(qp.EWMAAlphaQ15, lateBps(capped, totalTicks), qs.EWMALateRateBps)

	if qs.CooldownRemaining > 0 {
		qs.CooldownRemaining--
		return QosAdjustmentEvent{}, false
	}
	oldDeadline, oldRunAhead := c.deadline, c.runAhead
	switch {
	case qs.EWMALateRateBps > qp.RaiseLateRateBps:
		qs.ConsecutiveRaiseWindows++
		qs.ConsecutiveLowerWindows = 0
		if qs.ConsecutiveRaiseWindows >= qp.RaiseWindows {
			c.deadline = min(c.deadline+qosRaiseStep, qp.DeadlineMax)
			c.runAhead = uint8(min(int(c.runAhead)+int(qp.MaxStepPerUpdate), int(qp.RunAheadMax)))
			qs.CooldownRemaining = qp.CooldownWindows
			qs.ConsecutiveRaiseWindows = 0
		}
	case qs.EWMALateRateBps < qp.LowerLateRateBps && cushion:
		qs.ConsecutiveLowerWindows++
		qs.ConsecutiveRaiseWindows = 0
		if qs.ConsecutiveLowerWindows >= qp.LowerWindows {
			c.deadline = max(c.deadline-qosLowerStep, qp.DeadlineMin)
			c.runAhead = uint8(max(int(c.runAhead)-int(qp.MaxStepPerUpdate), int(qp.RunAheadMin)))
			qs.CooldownRemaining = qp.CooldownWindows
			qs.ConsecutiveLowerWindows = 0
		}
	default:
		qs.ConsecutiveRaiseWindows = 0
		qs.ConsecutiveLowerWindows = 0
	}
	if c.deadline == oldDeadline && c.runAhead == oldRunAhead {
		return QosAdjustmentEvent{}, false
	}
	reason := LowerStableWindow
	if c.runAhead > oldRunAhead || c.deadline > oldDeadline {
		reason = RaiseLateRate
	}
	return QosAdjustmentEvent{Tick: k, OldDeadline: oldDeadline, NewDeadline: c.deadline,
		OldRunAhead: oldRunAhead, NewRunAhead: c.runAhead, LateRateBpsEWMA: qs.EWMALateRateBps, Reason: reason}, true
}
