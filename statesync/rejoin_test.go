package statesync_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tickwire/tickwire/statesync"
)

// TestRejoinSameID: clients leave and come back under the same id after a
// second, many at a time, while others provide their state; every one
// ends running and in sync.
func TestRejoinSameID(t *testing.T) {
	r := newRoom(t, 21, statesync.Config{}, 300)
	r.loss = 0.02
	for id := uint32(1); id <= 60; id++ {
		r.join(id)
	}
	r.frames(20)
	rng := rand.New(rand.NewPCG(5, 5))
	away := map[uint32]int{}
	for f := range 800 {
		if f%100 < 50 && f%5 == 0 && f < 600 {
			for range 2 {
				id := uint32(1 + rng.IntN(60))
				if _, gone := away[id]; !gone {
					r.leave(id)
					away[id] = f + 20
				}
			}
		}
		for id, back := range away {
			if f == back {
				delete(away, id)
				r.join(id)
			}
		}
		r.frames(1)
	}
	for _, id := range r.ids() {
		p := r.clients[id]
		if !p.c.Running() || r.srv.State(id) != statesync.StateActive {
			t.Errorf("client %d: running %v, server says %v, frame %d of %d", id, p.c.Running(), r.srv.State(id), p.c.Frame(), r.srv.Frame())
		}
	}
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
}
