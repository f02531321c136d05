package fogauth

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

func update(tick uint64, player protocol.PlayerID, deltas ...Delta) []byte {
	b := AppendStateUpdateHeader(nil, tick, player, uint16(len(deltas)))
	for i := range deltas {
		b = AppendDelta(b, &deltas[i])
	}
	return b
}

func at(x, y protocol.SimCoord) protocol.WorldPos { return protocol.WorldPos{X: x, Y: y} }

// TestReconciler follows one entity through the seed's client rules:
// Enter (velocity zero), position Updates (velocity from the delta over
// the ticks elapsed, interpolation from the old position), a jump past
// MaxUnitSpeed × ticks (snap), prediction, Leave.
func TestReconciler(t *testing.T) {
	c := NewClient(2)
	w := c.World()
	e := sim.EntityState{ID: 9, Type: sim.TypeTank, Owner: 1, Pos: at(1000, 1000), Health: 300, HealthMax: 300, Target: 4}
	if err := c.Receive(update(10, 2, Delta{Kind: DeltaEnter, Entity: e})); err != nil {
		t.Fatal(err)
	}
	ce, ok := w.Entity(9)
	if !ok || ce.Velocity != (protocol.WorldPos{}) || ce.Target != 0 || ce.Pos != e.Pos || ce.InterpProgress != 1 {
		t.Fatalf("after Enter: %+v (the Enter layout has no target)", ce)
	}
	// Two ticks later, 100 SimCoord east: 50 per tick, interpolated from
	// where it was.
	if err := c.Receive(update(12, 2, Delta{Kind: DeltaUpdate, Mask: FieldPosition | FieldTarget, Entity: sim.EntityState{ID: 9, Pos: at(1100, 1000), Target: 4}})); err != nil {
		t.Fatal(err)
	}
	ce, _ = w.Entity(9)
	if ce.Velocity != at(50, 0) || ce.InterpStart != at(1000, 1000) || ce.InterpProgress != 0 || ce.Target != 4 || ce.LastUpdateTick != 12 {
		t.Fatalf("after a move: %+v", ce)
	}
	if x, _, _ := ce.Rendered(0); x != 1000 {
		t.Errorf("rendered at progress 0: x=%v, want the old position", x)
	}
	w.Interpolate(0.5)
	if x, _, _ := ce.Rendered(0); x != 1050 {
		t.Errorf("rendered half way: x=%v", x)
	}
	w.Interpolate(1)
	if x, _, _ := ce.Rendered(2); x != 1200 {
		t.Errorf("predicted 2 ticks on: x=%v", x)
	}
	if p := ce.Predict(3); p != at(1250, 1000) {
		t.Errorf("Predict(3) = %v", p)
	}
	// One tick later, farther than MaxUnitSpeed: a teleport is snapped to.
	if err := c.Receive(update(13, 2, Delta{Kind: DeltaUpdate, Mask: FieldPosition, Entity: sim.EntityState{ID: 9, Pos: at(1100+MaxUnitSpeed+1, 1000)}})); err != nil {
		t.Fatal(err)
	}
	ce, _ = w.Entity(9)
	if ce.Velocity != (protocol.WorldPos{}) || ce.InterpProgress != 1 || w.Stats().Snaps != 1 {
		t.Fatalf("after a jump: %+v, %d snaps", ce, w.Stats().Snaps)
	}
	// A StateUpdate older than one applied is ignored; one for another
	// player is refused.
	if err := c.Receive(update(11, 2, Delta{Kind: DeltaLeave, Entity: sim.EntityState{ID: 9}})); err != nil || w.Len() != 1 || c.Counters().Stale != 1 {
		t.Fatalf("stale update: %v, %d entities", err, w.Len())
	}
	if err := c.Receive(update(14, 3)); err == nil {
		t.Fatal("a StateUpdate for player 3 was accepted by player 2's client")
	}
	// Update and Leave of an unknown entity are ignored; Leave removes.
	if err := c.Receive(update(14, 2, Delta{Kind: DeltaUpdate, Mask: FieldHealth, Entity: sim.EntityState{ID: 5}},
		Delta{Kind: DeltaLeave, Entity: sim.EntityState{ID: 9}})); err != nil {
		t.Fatal(err)
	}
	if w.Len() != 0 || w.Stats().Unknown != 1 || w.Stats().Leaves != 1 {
		t.Fatalf("after Leave: %d entities, %+v", w.Len(), w.Stats())
	}
	// Every applied StateUpdate with deltas is acknowledged, in order.
	_, ack, _ := c.Flush()
	parts, err := ParseAck(ack, nil)
	if err != nil || len(parts) != 4 || parts[0] != (PartID{10, 9}) || parts[3] != (PartID{14, 5}) {
		t.Fatalf("ack %v, %v", parts, err)
	}
	for range AckRedundancy - 1 {
		c.Flush()
	}
	if _, ack, _ := c.Flush(); ack != nil {
		t.Fatalf("acks repeated beyond AckRedundancy flushes")
	}
}

// TestOverrunSkipsTicks: a room driven late runs one tick and skips the
// ones it cannot run in time, counting them, instead of catching up.
func TestOverrunSkipsTicks(t *testing.T) {
	r, err := newRTSRoom(Config{}, fuzzMap(), sim.Config{}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	iv := r.Config().TickInterval()
	if err := r.RunDue(iv); err != nil || r.Tick() != 1 || r.NextDeadline() != 2*iv {
		t.Fatalf("tick %d next %v: %v", r.Tick(), r.NextDeadline(), err)
	}
	late := 5*iv + time.Millisecond // three and a bit intervals late
	if err := r.RunDue(late); err != nil {
		t.Fatal(err)
	}
	if r.Tick() != 2 || r.Stats().SkippedTicks != 3 || r.NextDeadline() != 6*iv {
		t.Fatalf("after an overrun: tick %d, skipped %d, next %v", r.Tick(), r.Stats().SkippedTicks, r.NextDeadline())
	}
	if err := r.RunDue(6 * iv); err != nil || r.Tick() != 3 || r.Stats().SkippedTicks != 3 {
		t.Fatalf("back on time: tick %d, skipped %d", r.Tick(), r.Stats().SkippedTicks)
	}
}
