package lockstepbot

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwire/tickwire/lockstep"
)

// RejoinConfig makes the bots of a process vanish and come back: each
// bot, after applying tick DropAtTick, has its network cut by Drop (its
// socket falls silent, as a crash or a lost network would; the bot keeps
// its state), waits After, and takes its seat again through Rejoin (a new
// connection, the seat's rejoin secret, a donor's snapshot). The zero
// value drops nobody.
type RejoinConfig struct {
	DropAtTick uint64
	After      time.Duration
	// Which picks the bots that drop; nil means all.
	Which func(i int) bool
	// Drop cuts bot i's network.
	Drop func(i int)
	// Rejoin connects bot i anew and rejoins c's seat.
	Rejoin func(ctx context.Context, i int, c Client) error
}

func (rc RejoinConfig) enabled() bool { return rc.DropAtTick > 0 && rc.Drop != nil && rc.Rejoin != nil }

// roomSize is the size of c's room: the configured one, or for an
// observer the one the server told it.
func (r *runner) roomSize(c Client) int {
	if s, ok := c.(interface{ RoomSize() int }); ok && r.cfg.Observer {
		return s.RoomSize()
	}
	return r.cfg.RoomSize
}

// rejoinWatch is one bot's drops and reconnections.
type rejoinWatch struct {
	cfg       *RejoinConfig
	i         int
	done      bool      // dropped already
	droppedAt time.Time // zero once caught up
	took      []time.Duration
}

// before runs ahead of each game loop step: it drops the bot at the first
// step after it applied the drop tick (a step may apply several ticks, so
// the tick after the drop tick may never be the applied count), and notes
// when it is playing again.
func (w *rejoinWatch) before(ctx context.Context, c Client, applied uint64) error {
	w.settle(c)
	if w.done || !w.cfg.enabled() || applied <= w.cfg.DropAtTick || (w.cfg.Which != nil && !w.cfg.Which(w.i)) {
		return nil
	}
	w.done, w.droppedAt = true, time.Now()
	w.cfg.Drop(w.i)
	select {
	case <-time.After(w.cfg.After):
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := w.cfg.Rejoin(ctx, w.i, c); err != nil {
		return fmt.Errorf("rejoin: %w", err)
	}
	return nil
}

// settle notes a reconnection once the bot plays again.
func (w *rejoinWatch) settle(c Client) {
	if c.Status() == lockstep.StatusPlaying {
		w.back()
	}
}

// finish is settle after the run's last step, which may be the one that
// brought the bot back; a bot that applied all its ticks is back even if
// it was still catching up (it rejoined so late that it caught up to the
// end of its match).
func (w *rejoinWatch) finish(c Client, applied, ticks uint64) {
	w.settle(c)
	if applied >= ticks {
		w.back()
	}
}

// back counts the reconnection under way, if any.
func (w *rejoinWatch) back() {
	if !w.droppedAt.IsZero() {
		w.took = append(w.took, time.Since(w.droppedAt))
		w.droppedAt = time.Time{}
	}
}

// report fills the bot's reconnection figures.
func (w *rejoinWatch) report(p *PlayerReport) {
	p.Reconnects = len(w.took)
	for _, d := range w.took {
		p.ReconnectMS = max(p.ReconnectMS, ms(d))
	}
}
