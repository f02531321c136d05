package predict

import (
	"testing"
	"time"
)

// TestProvisionalMappedOrDiscarded: a spawn event of the player's action
// maps its provisional entity; a rejection discards it; an acknowledged
// action without either is discarded after the timeout.
func TestProvisionalMappedOrDiscarded(t *testing.T) {
	c := &Client{player: 1, cfg: ClientConfig{}.withDefaults(60), provisional: map[EntityID]*provisional{}, mapped: map[EntityID]EntityID{},
		core: &SimulationCore{mode: Predictive, ledger: newEffectLedger(64)}}
	for _, seq := range []uint32{5, 6, 7} {
		e := Event{Tick: 10, GameEvent: GameEvent{Kind: EventSpawn, Player: 1, ActionSeq: seq, Entity: -EntityID(seq)}}
		c.core.ledger.predicted(&e.GameEvent) // as the predictive core's Step records it
		c.fire(e, true)
	}
	c.serverEvent(&Event{ID: 1, Tick: 10, GameEvent: GameEvent{Kind: EventSpawn, Player: 1, ActionSeq: 5, Entity: 42}}, true)
	c.serverEvent(&Event{ID: 2, Tick: 10, GameEvent: GameEvent{Kind: EventRejected, Player: 1, ActionSeq: 6, Value: 1}}, true)
	c.serverEvent(&Event{ID: 2, Tick: 10, GameEvent: GameEvent{Kind: EventRejected, Player: 1, ActionSeq: 6, Value: 1}}, false) // a copy
	if id, ok := c.Mapped(-5); !ok || id != 42 {
		t.Fatalf("provisional -5 mapped to %d %v", id, ok)
	}
	c.provisional[-7].ackedAt = time.Second
	c.now = time.Second + c.cfg.ProvisionalTimeout + 1
	c.expireProvisional()
	st := c.stats
	if st.ProvisionalSpawns != 3 || st.ProvisionalMapped != 1 || st.ProvisionalDiscarded != 2 || c.ProvisionalPending() != 0 {
		t.Fatalf("%+v", st)
	}
	// The predicted spawn of action 5 already fired: the server's event
	// for it is not played again; the rejection (not predicted) is, once.
	if st.EffectsDeduped != 1 || st.EffectsFired != 4 {
		t.Fatalf("fired %d deduped %d", st.EffectsFired, st.EffectsDeduped)
	}
}

// TestInterpolationBuffer: between two frames positions are interpolated;
// past the newest they are extrapolated by velocity, at most maxTicks.
func TestInterpolationBuffer(t *testing.T) {
	var b interpBuffer
	b.frames[0] = interpFrame{tick: 10, views: []EntityView{{ID: 1, Pos: [3]float64{0, 0, 0}, Vel: [3]float64{1, 0, 0}}}}
	b.frames[1] = interpFrame{tick: 12, views: []EntityView{{ID: 1, Pos: [3]float64{2, 4, 0}, Vel: [3]float64{1, 0, 0}}}}
	b.n = 2
	v, extra := b.at(11, 5, nil)
	if extra || len(v) != 1 || v[0].Pos != [3]float64{1, 2, 0} {
		t.Fatalf("at 11: %+v %v", v, extra)
	}
	v, extra = b.at(20, 5, nil)
	if !extra || v[0].Pos != [3]float64{7, 4, 0} {
		t.Fatalf("at 20 (5 ticks of extrapolation at most): %+v %v", v, extra)
	}
}

// TestSmoothing: a correction's offset decays linearly to zero over the
// smoothing time; a snap clears it.
func TestSmoothing(t *testing.T) {
	s := smoothing{dur: 100 * time.Millisecond}
	s.add(3, 0, [3]float64{2, 0, 0})
	if o := s.current(50 * time.Millisecond); o != [3]float64{1, 0, 0} {
		t.Fatalf("half way: %v", o)
	}
	s.add(3, 50*time.Millisecond, [3]float64{1, 0, 0})
	if o := s.current(50 * time.Millisecond); o != [3]float64{2, 0, 0} {
		t.Fatalf("a second correction adds to what shows: %v", o)
	}
	if o := s.current(200 * time.Millisecond); o != [3]float64{} {
		t.Fatalf("after the blend: %v", o)
	}
	s.snap(3)
	if o := s.current(60 * time.Millisecond); o != [3]float64{} {
		t.Fatalf("after a snap: %v", o)
	}
}
