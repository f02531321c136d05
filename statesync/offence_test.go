package statesync_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

// TestRepeatDesyncerRemoved: a client whose state goes wrong again and
// again is repaired MaxDesyncs times, then removed with the reason, an
// event and a count.
func TestRepeatDesyncerRemoved(t *testing.T) {
	r := healthyRoom(t, 41, 8)
	for range 8 {
		if p := r.clients[3]; p != nil && p.c.Running() {
			p.e.corrupt(ids(p.e)[1])
		}
		r.frames(15)
	}
	removed := r.events(statesync.EventRemoved)
	if len(removed) != 1 || removed[0].Client != 3 || removed[0].Offence != statesync.OffenceDesyncs {
		t.Fatalf("removals %+v, want client 3 for repeated desyncs", removed)
	}
	if got := r.srv.Stats(); got.Removed != 1 || got.Desyncs != 5 {
		t.Fatalf("removed %d after %d repairs, want 1 after 5 (MaxDesyncs)", got.Removed, got.Desyncs)
	}
	if r.srv.State(3) != statesync.StateDisconnected {
		t.Fatalf("client 3 is %v", r.srv.State(3))
	}
	if err := r.srv.Join(r.now, 3); !errors.Is(err, statesync.ErrRemoved) {
		t.Fatalf("removed client joins again: %v", err)
	}
}

// TestFloodsThrottled: a second HELLO or full-state SyncRequest within
// RejoinInterval, or roster requests every frame, are refused and counted
// as offences; the first ones are served.
func TestFloodsThrottled(t *testing.T) {
	r := healthyRoom(t, 42, 6)
	r.frames(60) // everyone joined more than RejoinInterval ago
	if err := r.srv.Rejoin(r.now, 4); err != nil {
		t.Fatalf("first HELLO: %v", err)
	}
	if err := r.srv.Rejoin(r.now, 4); !errors.Is(err, statesync.ErrThrottled) {
		t.Fatalf("second HELLO: %v", err)
	}
	full := &msg.SyncRequest{What: msg.SyncFullState}
	if err := r.srv.Step(r.now, 5, full); err != nil {
		t.Fatalf("first full-state request: %v", err)
	}
	r.frames(40) // 5 is ACTIVE again, well within RejoinInterval
	if err := r.srv.Step(r.now, 5, full); !errors.Is(err, statesync.ErrThrottled) {
		t.Fatalf("second full-state request: %v", err)
	}
	roster := &msg.SyncRequest{What: msg.SyncClientList}
	_ = r.srv.Step(r.now, 6, roster)
	if err := r.srv.Step(r.now, 6, roster); !errors.Is(err, statesync.ErrThrottled) {
		t.Fatalf("roster request every frame: %v", err)
	}
	for _, id := range []uint32{4, 5, 6} {
		if r.srv.Offences(id) == 0 {
			t.Errorf("client %d's flood not counted", id)
		}
	}
	r.flushServer()
	r.frames(40)
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
}

// TestLeaveForgetsAWaitingClient: a late joiner that leaves and joins
// again before its state is assembled gets the full state once.
func TestLeaveForgetsAWaitingClient(t *testing.T) {
	r := healthyRoom(t, 43, 6)
	r.join(50)
	r.leave(50)
	r.join(50)
	r.frames(40)
	if r.srv.State(50) != statesync.StateActive {
		t.Fatalf("rejoiner is %v", r.srv.State(50))
	}
	if n := r.fullStates[50]; n != 4 { // one assembly from StateSources parts
		t.Fatalf("rejoiner was sent %d FULL_STATE messages, want one state in 4 parts", n)
	}
}

// TestRosterVersionedBeforeSent: a client list that changed since the
// last Tick is sent, on request, under a new version, and the next Tick
// broadcasts that version without bumping it again.
func TestRosterVersionedBeforeSent(t *testing.T) {
	r := healthyRoom(t, 44, 6)
	before := r.srv.ListVersion()
	r.srv.Leave(r.now, 6)
	_ = r.srv.Step(r.now, 2, &msg.SyncRequest{What: msg.SyncClientList})
	rd := r.srv.Ready()
	var got *msg.ClientListUpdate
	for _, env := range rd.Messages {
		if m, ok := env.Msg.(*msg.ClientListUpdate); ok && env.To == 2 {
			got = m
		}
	}
	r.srv.Advance(rd)
	if got == nil || got.Version != before+1 || slices.Contains(got.Clients, 6) {
		t.Fatalf("list sent %+v, want version %d without client 6", got, before+1)
	}
	delete(r.clients, 6)
	r.frames(1)
	if v := r.srv.ListVersion(); v != before+1 {
		t.Fatalf("version %d after the Tick, want %d", v, before+1)
	}
}
