package fogauth

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// seats is a game of n seats that New may host: only its size and its
// target filter are used before the first tick.
type seats struct {
	Game
	n int
}

func (g seats) Players() int { return g.n }

func (seats) SetTargetFilter(func(protocol.PlayerID, *protocol.EntityState) bool) {}

// TestNewPlayerBounds: a room hosts games of 1..MaxPlayers seats and
// refuses one of none or of MaxPlayers+1 with ErrPlayer.
func TestNewPlayerBounds(t *testing.T) {
	for n, ok := range map[int]bool{-1: false, 0: false, 1: true, MaxPlayers: true, MaxPlayers + 1: false} {
		_, err := New(Config{}, seats{n: n}, 0)
		if ok && err != nil {
			t.Errorf("%d seats: %v", n, err)
		}
		if !ok && !errors.Is(err, ErrPlayer) {
			t.Errorf("%d seats: err %v, want ErrPlayer", n, err)
		}
	}
}

// TestGiveUpCountsSeatsOnly: a room is done when every seat gave up; a
// player id past the seats is ignored rather than counted or indexed.
func TestGiveUpCountsSeatsOnly(t *testing.T) {
	r, err := New(Config{}, seats{n: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.GiveUp(3)
	r.GiveUp(1)
	if r.AllDone() {
		t.Fatal("done with seat 2 still playing")
	}
	r.GiveUp(2)
	if !r.AllDone() {
		t.Error("not done after every seat gave up")
	}
}

// TestOrderRateExactly: a client may give exactly MaxOrdersPerTick orders
// a tick; the one past it is refused for the rate, and the next tick the
// allowance is whole again.
func TestOrderRateExactly(t *testing.T) {
	h := scenarioHarness(t, Config{MaxOrdersPerTick: 3}, 2, 10, 1)
	if err := h.room.AddClient(1, 1); err != nil {
		t.Fatal(err)
	}
	player := NewClient(1)
	for tick, submit := range []int{4, 3} {
		for i := range submit {
			player.SubmitOrder(protocol.TimestampedOrder{Order: protocol.Idle{}, SubTickTime: uint32(i)})
		}
		msgs, _, err := player.Flush()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if err := h.room.Step(1, m); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := h.room.ClientStats(1)
		if err := h.room.RunDue(h.room.NextDeadline()); err != nil {
			t.Fatal(err)
		}
		rate := 0
		for _, e := range h.room.Ready().Messages {
			if r, err := ParseRejection(e.Data); e.Reliable && err == nil && r.Reason == RejectRate {
				rate += int(r.Count)
			}
		}
		h.room.Advance()
		after, _ := h.room.ClientStats(1)
		if applied := after.OrdersApplied - before.OrdersApplied; applied != 3 || rate != submit-3 {
			t.Errorf("tick %d, %d orders: %d applied and %d refused for the rate, want 3 and %d", tick, submit, applied, rate, submit-3)
		}
	}
}

// TestOverrunByExactlyOneInterval: a room driven exactly one interval
// late runs the due tick and skips none: the next tick is due at once.
// Every tick run is one simulation step.
func TestOverrunByExactlyOneInterval(t *testing.T) {
	r, err := newRTSRoom(Config{}, fuzzMap(), sim.Config{}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	iv := r.Config().TickInterval()
	if err := r.RunDue(2 * iv); err != nil || r.Tick() != 1 || r.NextDeadline() != 2*iv || r.Stats().SkippedTicks != 0 {
		t.Fatalf("tick %d next %v skipped %d: %v", r.Tick(), r.NextDeadline(), r.Stats().SkippedTicks, err)
	}
	if err := r.RunDue(2 * iv); err != nil || r.Tick() != 2 || r.NextDeadline() != 3*iv || r.Stats().SimTicks != 2 {
		t.Fatalf("tick %d next %v sim ticks %d: %v", r.Tick(), r.NextDeadline(), r.Stats().SimTicks, err)
	}
}

// TestHasReadyOnlyWithMessages: a new room, and a room whose output was
// taken, has nothing ready (a driver loops on HasReady).
func TestHasReadyOnlyWithMessages(t *testing.T) {
	h := scenarioHarness(t, Config{}, 2, 10, 1)
	if h.room.HasReady() {
		t.Fatal("a room that produced nothing has output ready")
	}
	if err := h.room.AddClient(1, 1); err != nil {
		t.Fatal(err)
	}
	if err := h.room.RunDue(h.room.NextDeadline()); err != nil {
		t.Fatal(err)
	}
	if !h.room.HasReady() {
		t.Fatal("a tick with a client produced nothing")
	}
	h.room.Ready()
	h.room.Advance()
	if h.room.HasReady() {
		t.Error("output still ready after Advance")
	}
}
