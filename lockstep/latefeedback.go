package lockstep

import (
	"fmt"
	"time"
)

// LateNoticeEvery is how often the player-facing late-order indicator
// (Diagnostics.LateNotice) may change: the seed design's rate limit.
const LateNoticeEvery = 3 * time.Second

// lateIndicator is the player-facing timing feedback: when the relay
// reports a local submission late (LateNotice), a small indicator
// "Late order (+34 ms)". It changes at most once every LateNoticeEvery;
// late orders reported in between are aggregated into the next change:
// the latest one's lateness and how many there were. It is informational
// only: nothing in the simulation depends on it.
type lateIndicator struct {
	shownAt time.Duration
	shown   bool
	held    int           // late orders since the indicator last changed
	lastBy  time.Duration // the latest one's lateness
}

// late records a late order reported at now.
func (l *lateIndicator) late(by, now time.Duration, d *Diagnostics) {
	l.held++
	l.lastBy = by
	l.refresh(now, d)
}

// refresh shows what is held if the rate limit allows it at now.
func (l *lateIndicator) refresh(now time.Duration, d *Diagnostics) {
	if l.held == 0 || (l.shown && now-l.shownAt < LateNoticeEvery) {
		return
	}
	d.LateNotice = lateText(l.lastBy)
	d.LateNoticeCount = l.held
	l.shownAt, l.shown, l.held = now, true, 0
}

// lateText is the indicator's text: the lateness rounded to the
// millisecond.
func lateText(by time.Duration) string {
	return fmt.Sprintf("Late order (+%d ms)", (by+time.Millisecond/2)/time.Millisecond)
}
