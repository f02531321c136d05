package lockstepbot

import (
	"context"
	"testing"

	"github.com/tickwire/tickwire/lockstep"
)

// statusClient is a Client whose status the test sets; the watch asks it
// nothing else.
type statusClient struct {
	Client
	status lockstep.Status
}

func (c *statusClient) Status() lockstep.Status { return c.status }

// TestRejoinWatchDropsOnce: a bot drops once, at the first step past the
// drop tick, even when one step applies several ticks and jumps over the
// tick after it (as a loaded machine's bot catches up); its reconnection
// counts once it plays again, also when the match's last tick comes in
// the step that brought it back, or while it still catches up (it came
// back so late that it caught up to the end), but not when its run stops
// before it is back.
func TestRejoinWatchDropsOnce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		applied    []uint64        // Applied before each step
		back       lockstep.Status // the status after the step that rejoined
		finish     uint64          // Applied when the run ends (0: not yet)
		reconnects int
	}{
		{"every tick", []uint64{59, 60, 61, 62, 63}, lockstep.StatusPlaying, 0, 1},
		{"a step jumps over the tick after", []uint64{58, 63, 70, 71}, lockstep.StatusPlaying, 0, 1},
		{"the match ends in the step back", []uint64{40, 90}, lockstep.StatusPlaying, 240, 1},
		{"the match ends while catching up", []uint64{40, 90, 200}, lockstep.StatusCatchingUp, 240, 1},
		{"the run stops while catching up", []uint64{40, 90, 200}, lockstep.StatusCatchingUp, 210, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &statusClient{status: lockstep.StatusPlaying}
			drops, rejoins := 0, 0
			cfg := RejoinConfig{DropAtTick: 60, Drop: func(int) { drops++ },
				Rejoin: func(context.Context, int, Client) error { rejoins++; c.status = lockstep.StatusDownloading; return nil }}
			w := rejoinWatch{cfg: &cfg}
			for _, a := range tc.applied {
				if err := w.before(t.Context(), c, a); err != nil {
					t.Fatal(err)
				}
				if rejoins > 0 {
					c.status = tc.back // by the next step
				}
			}
			if tc.finish > 0 {
				w.finish(c, tc.finish, 240)
			}
			var p PlayerReport
			w.report(&p)
			if drops != 1 || rejoins != 1 || p.Reconnects != tc.reconnects {
				t.Fatalf("applied %v: %d drops, %d rejoins, %d reconnects; want 1, 1, %d", tc.applied, drops, rejoins, p.Reconnects, tc.reconnects)
			}
		})
	}
}
