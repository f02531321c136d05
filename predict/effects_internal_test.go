package predict

import "testing"

// TestLedgerFullNeverFiresTwice: when the effect memory is full, the
// prediction stops firing effects and the server's events fire them; an
// effect heard while full keeps the prediction silent until the anchor
// is past its tick, so a replay cannot fire it again.
func TestLedgerFullNeverFiresTwice(t *testing.T) {
	l := newEffectLedger(4)
	spawn := func(seq uint32) GameEvent { return GameEvent{Kind: EventSpawn, Type: 1, Player: 1, ActionSeq: seq} }
	for seq := range uint32(4) {
		if e := spawn(seq + 1); !l.predicted(&e) {
			t.Fatalf("spawn %d not fired with room left", seq+1)
		}
	}
	e5 := spawn(5)
	if l.predicted(&e5) || l.deferred != 1 {
		t.Fatal("a full ledger fired a predicted effect")
	}
	if !l.heard(&Event{ID: 1, Tick: 50, GameEvent: e5}) {
		t.Fatal("the server's event of a deferred effect did not fire")
	}
	// Room again (action 1 ended and settled), but the anchor is before
	// the tick the unremembered effect was heard at: still silent.
	l.heard(&Event{ID: 2, Tick: 20, GameEvent: GameEvent{Kind: EventDespawn, Type: 5, Player: 1, ActionSeq: 1}})
	l.settle(30, 2, 0, 0)
	if l.predicted(&e5) {
		t.Fatal("an effect heard while the ledger was full fired again from a replay")
	}
	l.settle(50, 2, 0, 0)
	if l.size() > 4 {
		t.Fatalf("ledger holds %d entries, limit 4", l.size())
	}
}

// TestLedgerRemembersUntilActionEnds: a predicted effect stays remembered
// across any number of anchors until the server has ended its action on
// the reliable lane and the anchor is past that end; the late input's
// replay cannot fire it again meanwhile (the bug: it was forgotten after
// one anchor and fired again).
func TestLedgerRemembersUntilActionEnds(t *testing.T) {
	l := newEffectLedger(64)
	e := GameEvent{Kind: EventSpawn, Type: 1, Player: 1, ActionSeq: 7}
	if !l.predicted(&e) {
		t.Fatal("not fired")
	}
	for anchor := uint64(10); anchor < 500; anchor += 10 {
		l.settle(anchor, 0, 0, 0)
		if l.predicted(&e) {
			t.Fatalf("fired again at anchor %d", anchor)
		}
	}
	// The server's despawn of it arrives early in a snapshot (id 9), the
	// reliable lane is at 8: not yet settled.
	l.heard(&Event{ID: 9, Tick: 600, GameEvent: GameEvent{Kind: EventDespawn, Type: 5, Player: 1, ActionSeq: 7}})
	l.settle(600, 8, 0, 0)
	if _, ok := l.fired[effectOf(&e)]; !ok {
		t.Fatal("forgotten before the reliable lane delivered the action's end")
	}
	l.settle(600, 9, 0, 0)
	if l.size() != 0 {
		t.Fatalf("%d entries left after the action ended", l.size())
	}
}

// TestEventSetBounded: snapshot copies far ahead of the reliable lane are
// not taken (the reliable copy will come), and early ids are forgotten
// only once the reliable lane passed them.
func TestEventSetBounded(t *testing.T) {
	var s eventSet
	if !s.add(5, false) || s.add(5, false) || s.add(5, true) {
		t.Fatal("early id 5 not handled once")
	}
	if s.add(5+earlyWindow+1, false) {
		t.Fatal("an id far ahead of the reliable lane was taken from a snapshot")
	}
	for id := uint64(6); id < 6+earlyWindow; id++ {
		s.add(id, false)
	}
	if len(s.early) > earlyWindow {
		t.Fatalf("%d early ids", len(s.early))
	}
	s.add(6+earlyWindow, true)
	if len(s.early) != 0 {
		t.Fatalf("%d early ids left behind the reliable lane", len(s.early))
	}
}
