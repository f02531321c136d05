package statesync_test

import (
	"testing"

	"github.com/tickwire/tickwire/statesync"
)

// TestShrinkingRoomKeepsRepairing: a room of 100 shrinks to 40 by
// graceful leaves (one every four frames) while a client's state is
// corrupted every 25 frames. A graceful leave lowers the quorum's peak,
// so the room never goes read-only, and every desync is detected and
// repaired, down to the last one in the room of 40. With -short, 50
// shrink to 20; under the race detector, 30 to 12.
func TestShrinkingRoomKeepsRepairing(t *testing.T) {
	from, to := 100, 40
	switch {
	case raceEnabled:
		from, to = 30, 12
	case testing.Short():
		from, to = 50, 20
	}
	r := healthyRoom(t, 31, from)
	type injected struct{ client, frame uint32 }
	var corrupted []injected
	next := uint32(1)
	for f := 0; len(r.clients) > to || f%25 != 1; f++ {
		if f%4 == 0 && len(r.clients) > to {
			for next <= uint32(from) && r.clients[next] == nil {
				next++
			}
			r.leave(next)
		}
		if f%25 == 0 {
			live := r.ids()
			p := r.clients[live[len(live)-1-f/25%len(live)]]
			if p.c.Running() && p.e.corrupt(ids(p.e)[1]) {
				corrupted = append(corrupted, injected{p.id, p.c.Frame()})
			}
		}
		r.frames(1)
	}
	r.frames(60)
	if r.srv.ReadOnly() || len(r.events(statesync.EventReadOnly)) > 0 {
		t.Fatalf("the shrinking room went read-only: %+v", r.events(statesync.EventReadOnly))
	}
	for _, c := range corrupted {
		repaired := false
		for _, e := range r.events(statesync.EventRecovered) {
			repaired = repaired || e.Client == c.client && e.Frame > c.frame
		}
		if !repaired {
			t.Errorf("client %d corrupted after frame %d was never repaired", c.client, c.frame)
		}
	}
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
	t.Logf("%d → %d clients: %d desyncs injected, %d recovered", from, len(r.clients), len(corrupted), len(r.events(statesync.EventRecovered)))
	if len(corrupted) < (from-to)*4/25 {
		t.Fatalf("only %d desyncs injected", len(corrupted))
	}
}

// TestRepairWhileReadOnly: a room of 10 loses 6 at once (a split: read-
// only), then one of the 4 left desyncs. The 3 others are still a
// majority of the voters, so its repair goes on in read-only mode.
func TestRepairWhileReadOnly(t *testing.T) {
	r := healthyRoom(t, 32, 10)
	for id := uint32(5); id <= 10; id++ {
		r.cut[id] = true
	}
	r.frames(200) // 3 s to drop the silent, 5 s of grace
	if !r.srv.ReadOnly() {
		t.Fatal("not read-only after the split")
	}
	for id := uint32(5); id <= 10; id++ {
		delete(r.clients, id)
	}
	victim := r.clients[2]
	victim.e.corrupt(ids(victim.e)[1])
	from := victim.c.Frame()
	r.frames(60)
	if !r.srv.ReadOnly() {
		t.Fatal("the quorum came back by itself")
	}
	repaired := false
	for _, e := range r.events(statesync.EventRecovered) {
		repaired = repaired || e.Client == 2 && e.Frame > from
	}
	if ok, bad := r.inSync(); !ok || !repaired {
		t.Fatalf("in read-only mode: repaired %v, out of sync %v", repaired, bad)
	}
}
