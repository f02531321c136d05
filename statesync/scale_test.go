package statesync_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/statesync"
)

// scenario is the scale and fault run, in virtual time.
type scenario struct {
	clients, frames int
	seed            uint64
}

// TestScaleAndFaults runs a room through churn (10% of the clients
// replaced by new ones every 100 frames, outside the split), corruption, a lying
// sender, a 40/60 network split and a late joiner every 100 frames. By
// default it runs 200 clients for 1,000 frames; with
// TICKWIRE_STATESYNC_FULL=1 it runs the 1,000 clients for 2,000
// frames (about 3.5 minutes on two cores); with -short or under the race
// detector, 60 clients for 600 frames.
func TestScaleAndFaults(t *testing.T) {
	sc := scenario{clients: 200, frames: 1000, seed: 42}
	if os.Getenv("TICKWIRE_STATESYNC_FULL") == "1" {
		sc = scenario{clients: 1000, frames: 2000, seed: 42}
	} else if testing.Short() || raceEnabled {
		sc = scenario{clients: 60, frames: 600, seed: 42}
	}
	runScenario(t, sc)
}

func runScenario(t *testing.T, sc scenario) {
	r := newRoom(t, sc.seed, statesync.Config{}, 300)
	rng := rand.New(rand.NewPCG(sc.seed, 7))
	r.loss = 0.01
	nextID := uint32(1)
	join := func() uint32 {
		id := nextID
		nextID++
		r.join(id)
		return id
	}
	// Mass join: the room fills at 20 clients a frame.
	for len(r.clients) < sc.clients {
		for range min(20, sc.clients-len(r.clients)) {
			join()
		}
		r.frames(1)
	}
	r.frames(40)

	liar := uint32(3)
	r.lieAbout[liar] = true
	// The split lasts 10 s: 3 s until the server drops the silent side,
	// 5 s of grace, and some read-only time.
	split := sc.frames / 2
	heal := split + 200
	after := (sc.frames - heal) / 3
	corruptAt := []int{sc.frames / 8, 2 * sc.frames / 8, 3 * sc.frames / 8, heal + after, heal + 2*after}
	type corruption struct {
		client, entity uint32
		frame          uint32
	}
	var corrupted []corruption
	var lateJoiners []uint32
	var cut []uint32
	// Churn: 10% of the room replaced every 100 frames, spread evenly
	// (frame f replaces churnAt(f) clients: one a frame at 1,000
	// clients, one every five frames at 200), outside the split.
	perHundred := sc.clients / 10
	churnAt := func(f int) int { return (f+1)*perHundred/100 - f*perHundred/100 }
	replaced := 0

	running := func() []uint32 {
		var out []uint32
		for id, p := range r.clients {
			if p.c.Running() && !r.cut[id] && id != liar && r.srv.State(id) == statesync.StateActive {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}
	for f := 0; f < sc.frames; f++ {
		if f%100 == 50 {
			lateJoiners = append(lateJoiners, join())
		}
		if f < split || f > heal+20 {
			for range churnAt(f) {
				replaced++
				ids := running()
				if len(ids) > 1 {
					r.leave(ids[rng.IntN(len(ids))])
				}
				join()
			}
		}
		if slices.Contains(corruptAt, f) {
			live := running()
			p := r.clients[live[rng.IntN(len(live))]]
			ents := ids(p.e)
			ent := ents[1+rng.IntN(len(ents)-1)]
			p.e.corrupt(ent)
			corrupted = append(corrupted, corruption{client: p.id, entity: ent, frame: p.c.Frame()})
		}
		if f == split {
			ids := running()
			rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			cut = ids[:len(ids)*6/10]
			for _, id := range cut {
				r.cut[id] = true
			}
		}
		if f == heal {
			if !r.srv.ReadOnly() {
				t.Errorf("frame %d: the 40%% side is not read-only after the split", f)
			}
			for _, id := range cut {
				delete(r.cut, id)
				delete(r.clients, id)
				r.srv.Leave(r.now, id)
				r.join(id)
			}
		}
		r.frames(1)
	}
	r.frames(100)

	// Every corruption detected at the next verdict and corrected, the
	// diff naming the entity.
	for _, c := range corrupted {
		var detected, recovered bool
		for _, e := range r.serverEvents {
			if e.Client != c.client || e.Frame <= c.frame {
				continue
			}
			switch e.Kind {
			case statesync.EventDesync:
				// The next verdict the client votes in: its hash of the
				// next frame may be among the 1% lost.
				if !detected && e.Frame > c.frame+3 {
					t.Errorf("corruption of client %d after frame %d detected at frame %d, not the next", c.client, c.frame, e.Frame)
				}
				detected = true
			case statesync.EventRecovered:
				recovered = recovered || detected
			}
		}
		named := false
		for _, e := range r.clientEvents[c.client] {
			for _, d := range e.Diffs {
				named = named || strings.HasPrefix(d, fmt.Sprintf("entity %d:", c.entity))
			}
		}
		if !detected || !recovered || !named {
			t.Errorf("corruption of entity %d on client %d at frame %d: detected %v recovered %v diff names it %v",
				c.entity, c.client, c.frame, detected, recovered, named)
		}
	}
	// The liar's partitions were all rejected.
	rejected := 0
	for _, e := range r.events(statesync.EventPartitionRejected) {
		wasCorrupted := slices.ContainsFunc(corrupted, func(c corruption) bool { return c.client == e.Client && e.Frame > c.frame })
		switch {
		case e.Client == liar:
			rejected++
		case wasCorrupted:
		default:
			t.Errorf("honest client %d's partition rejected at frame %d", e.Client, e.Frame)
		}
	}
	if rejected == 0 {
		t.Error("the liar's partitions were never rejected")
	}
	// Read-only during the split only.
	ro := r.events(statesync.EventReadOnly)
	if len(ro) != 2 || !ro[0].On || ro[1].On {
		t.Errorf("read-only transitions %+v, want on then off", ro)
	}
	// Every late joiner synced from a verified state and is ACTIVE.
	for _, id := range lateJoiners {
		if _, ok := r.clients[id]; !ok {
			continue // churned out again
		}
		if r.srv.State(id) != statesync.StateActive {
			t.Errorf("late joiner %d is %v", id, r.srv.State(id))
		}
	}
	if ok, bad := r.inSync(); !ok {
		t.Errorf("out of sync at the end: %v", bad)
	}
	st := r.srv.Stats()
	if want := (sc.frames - 220) * perHundred / 100; replaced < want-1 {
		t.Errorf("%d clients replaced, want about %d (10%% per 100 frames)", replaced, want)
	}
	t.Logf("%d clients replaced (%d per 100 frames)", replaced, perHundred)
	t.Logf("%d clients, %d frames: tiers %v, desyncs %d recovered %d fallbacks %d, late joins %d, agreement %.2f%%, server core %v per frame",
		sc.clients, sc.frames, st.Tiers[1:], st.Desyncs, st.Recovered, st.SnapshotFallbacks, st.LateJoins,
		100*float64(st.Agreeing)/float64(st.Voters), r.tickCPU/durationFrames(st.Frames))
}
