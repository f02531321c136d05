package lockstep

import (
	"log/slog"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
)

// playingCore is a core in play: tick 0 opened at relay time 0, its
// clock equal to the relay's.
func playingCore(t *testing.T) *clientCore {
	t.Helper()
	c := newClientCore(RelayClientConfig{MetricsInterval: time.Hour, MaxQueuedTicks: 16}, slog.New(slog.DiscardHandler),
		join.Seat{Player: 2, RoomSize: 2, TickRate: 30}, [32]byte{}, [16]byte{})
	c.Step(0, &msg.MatchTiming{TickIntervalUs: 33_333, DeadlineUs: 40_000})
	c.Step(0, &msg.SeedResult{Seed: 1})
	for c.HasReady() {
		c.Ready()
		c.Advance()
	}
	return c
}

// TestUnsentSubmission: a submission the lane refuses as too large is
// split at once and the rest waits for the next window; a single order
// that cannot go is dropped and the heartbeat still goes; backpressure
// gives every order back. A retry produced while a Ready is being sent
// waits for the next Ready.
func TestUnsentSubmission(t *testing.T) {
	c := playingCore(t)
	for i := range 6 {
		c.submit(protocol.TimestampedOrder{Order: protocol.Sell{Building: protocol.EntityID(i)}}, time.Millisecond)
	}
	due, _ := c.NextDeadline()
	c.Tick(due)
	rd := c.Ready()
	s, ok := rd.Messages[0].(*msg.OrderSubmit)
	if len(rd.Messages) != 1 || !ok || len(s.Orders) != 6 {
		t.Fatalf("ready %+v", rd.Messages)
	}
	c.Unsent(s, true)
	c.Advance() // releases the Ready taken, not the retry produced since
	rd = c.Ready()
	retry := rd.Messages[0].(*msg.OrderSubmit)
	if len(rd.Messages) != 1 || retry.Tick != s.Tick || len(retry.Orders) != 3 || len(c.st.pending) != 3 {
		t.Fatalf("retry %+v, %d pending", retry, len(c.st.pending))
	}
	c.Advance()

	due, _ = c.NextDeadline()
	c.Tick(due)
	next := c.Ready().Messages[0].(*msg.OrderSubmit)
	if next.Tick != s.Tick+1 || len(next.Orders) != 3 || next.Orders[0].Order != (protocol.Sell{Building: 3}) {
		t.Fatalf("next window's submission %+v", next)
	}
	c.Unsent(next, false) // backpressure
	c.Advance()
	if c.HasReady() || len(c.st.pending) != 3 || c.st.diag.OrdersSent != 3 {
		t.Fatalf("backpressure: ready %v, %d pending, %d sent", c.HasReady(), len(c.st.pending), c.st.diag.OrdersSent)
	}

	c.st.pending = c.st.pending[:1]
	due, _ = c.NextDeadline()
	c.Tick(due)
	one := c.Ready().Messages[0].(*msg.OrderSubmit)
	c.Unsent(one, true)
	c.Advance()
	heartbeat := c.Ready().Messages[0].(*msg.OrderSubmit)
	if len(heartbeat.Orders) != 0 || heartbeat.Tick != one.Tick || len(c.st.pending) != 0 || c.st.diag.OrdersSent != 3 {
		t.Fatalf("an order that cannot be sent: heartbeat %+v, %d pending, %d sent", heartbeat, len(c.st.pending), c.st.diag.OrdersSent)
	}
}
