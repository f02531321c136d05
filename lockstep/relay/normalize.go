package relay

import "time"

// Normalization maps the client's sub-tick hints into relay time and
// replaces them with canonical ones:
//
//  1. The submission's send stamp, mapped through the player's residual
//     clock offset, is clamped to the feasible arrival envelope: sent at
//     most OneWay + 4*jitter + SkewBudget and at least OneWay - 4*jitter -
//     SkewBudget before it arrived.
//  2. Its orders were issued within the batching window before the send:
//     [sent - tick interval - SkewBudget, sent]. The batch's window is the
//     claimed tick clamped to the windows that interval touches.
//  3. Each order's hint, mapped the same way, is clamped to that interval
//     and to [0, tick window), giving its canonical SubTickTime.
//
// Every claim clamped from earlier than the envelope allows counts as
// suspicious. A batch moved to a window already broadcast is dropped as
// late, and counted and reported as a late submission (LateSubmission),
// so the player's client is told.
func Normalization() Filter { return normalization{} }

type normalization struct{}

func (normalization) Name() string { return "normalize" }

func (normalization) Apply(b *Batch) {
	if b.Kept() == 0 {
		return // a late or empty batch claims nothing
	}
	c, cal, tl := b.core, &b.p.state.Clock, &b.core.timeline
	slack := c.cfg.SkewBudget
	sent := usToDur(b.Submit.SentUs)
	dev, env := b.Deviation, b.Envelope
	if dev > env {
		b.Suspicious++
		dev = env
	}
	dev = max(dev, -env)
	relaySent := min(b.Now-cal.OneWay()-dev, b.Now)
	mapping := relaySent - sent // client estimate → relay time
	lo, hi := relaySent-tl.interval-slack, relaySent

	claimed := int64(b.Submit.Tick)
	w := min(max(claimed, tl.windowOf(lo)), tl.windowOf(hi))
	if w < 0 || uint64(w) < tl.next {
		// Dated to a window already broadcast: late, counted and told
		// like a submission that arrived after its window's frame.
		b.DropAll(DropLate)
		c.lateBatch(b.p, uint64(max(w, 0)))
		return
	}
	b.Tick = uint64(w)
	ws := tl.windowStart(w)
	first, last := max(lo, ws), min(hi, ws+tl.interval-time.Microsecond)
	claimBase := tl.windowStart(claimed) + mapping
	for i := range b.Orders {
		o := &b.Orders[i]
		r := claimBase + time.Duration(o.SubTickTime)*time.Microsecond
		if r < lo {
			b.Suspicious++
		}
		r = min(max(r, first), last)
		o.SubTickTime = uint32((r - ws) / time.Microsecond)
	}
}
