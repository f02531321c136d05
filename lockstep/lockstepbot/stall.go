package lockstepbot

import (
	"sync"
	"sync/atomic"
	"time"
)

// lightSampleEvery is how often, in ticks, a light client samples its
// diagnostics (RTT, progress).
const lightSampleEvery = 30

// stallWatch calls onStall when no tick was applied for limit. A tick
// only stores its time; the timer re-arms itself when it fires, so a bot
// pays no timer operation per tick.
type stallWatch struct {
	limit   time.Duration
	onStall func()
	last    atomic.Int64 // monotonic nanoseconds since start of the last tick

	mu    sync.Mutex
	start time.Time
	timer *time.Timer // nil once stopped
}

func newStallWatch(limit time.Duration, onStall func()) *stallWatch {
	w := &stallWatch{limit: limit, onStall: onStall, start: time.Now()}
	w.mu.Lock()
	w.timer = time.AfterFunc(limit, w.check)
	w.mu.Unlock()
	return w
}

// tick records that a tick was applied at now.
func (w *stallWatch) tick(now time.Time) { w.last.Store(int64(now.Sub(w.start))) }

// check runs when the timer fires: it reports a stall or re-arms for the
// rest of the limit after the last tick.
func (w *stallWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer == nil {
		return
	}
	idle := time.Since(w.start) - time.Duration(w.last.Load())
	if idle >= w.limit {
		w.timer = nil
		w.onStall()
		return
	}
	w.timer.Reset(w.limit - idle)
}

func (w *stallWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
}
