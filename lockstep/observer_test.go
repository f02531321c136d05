package lockstep_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

// tickTimes records when each tick was applied, by whom.
type tickTimes struct {
	mu sync.Mutex
	at map[protocol.PlayerID]map[uint64]time.Time
}

func (tt *tickTimes) record(id protocol.PlayerID, tick uint64) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.at[id] == nil {
		tt.at[id] = map[uint64]time.Time{}
	}
	tt.at[id][tick] = time.Now()
}

// observe joins room as an observer asking for delay ticks and plays
// until it applied ticks ticks; it returns its hash after tick ticks-1.
func observe(ctx context.Context, rn *relayNet, delay uint32, ticks uint64, tt *tickTimes) (uint64, *lockstep.GameLoop, error) {
	conn, err := rn.dial(ctx, netsim.Link{Latency: 20 * time.Millisecond}, 99)
	if err != nil {
		return 0, nil, err
	}
	rc, err := lockstep.JoinObserver(ctx, conn, "match", delay, lockstep.RelayClientConfig{})
	if err != nil {
		return 0, nil, err
	}
	defer rc.Close()
	seed, err := rc.AwaitSeed(ctx)
	if err != nil {
		return 0, nil, err
	}
	m, cfg, err := scenario.Generate(scenario.Params{Players: rc.RoomSize(), Seed: seed})
	if err != nil {
		return 0, nil, err
	}
	s, err := sim.New(m, cfg, seed)
	if err != nil {
		return 0, nil, err
	}
	// An observer applies what arrives (no input paces it): the hash that
	// counts is the one after tick ticks-1.
	var hash uint64
	loop := &lockstep.GameLoop{Sim: s, Net: rc, OnTick: func(tick, h uint64) {
		tt.record(0, tick)
		if tick == ticks-1 {
			hash = h
		}
	}}
	err = runLoop(ctx, rc, loop, ticks, nil)
	return hash, loop, err
}

// TestObserverHashes: an observer joins a running 3-player match asking
// for a 90-tick delay (the room's delay_ticks is 30): it loads a donor's
// snapshot, applies every frame at least 90 ticks after the players did,
// never submits, and ends with the players' hash.
func TestObserverHashes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := rejoinRelay(t, 30, nil)
		defer rn.close()
		const ticks, delay = 450, 90
		tt := &tickTimes{at: map[protocol.PlayerID]map[uint64]time.Time{}}
		type obs struct {
			hash uint64
			loop *lockstep.GameLoop
			err  error
		}
		done := make(chan obs, 1)
		go func() {
			time.Sleep(8 * time.Second) // the match plays by then
			h, loop, err := observe(t.Context(), rn, delay, ticks, tt)
			done <- obs{h, loop, err}
		}()
		rres := runRejoinMatch(t, rn, 3, netsim.Link{Latency: 20 * time.Millisecond}, ticks, dropPlan{onTick: tt.record}, nil, nil)
		res := make([]result, len(rres))
		for i, r := range rres {
			res[i] = r.result
		}
		checkInSync(t, res, ticks)
		o := <-done
		if o.err != nil {
			t.Fatal(o.err)
		}
		if o.hash != res[0].hash || !o.loop.Loaded {
			t.Errorf("observer: hash %016x (snapshot loaded %v), players %016x", o.hash, o.loop.Loaded, res[0].hash)
		}
		interval := time.Second / 30
		n := 0
		for tick, at := range tt.at[0] {
			if tick+delay+30 > ticks {
				continue // the players left: the room flushed the rest at once
			}
			n++
			for id, m := range tt.at {
				if p, ok := m[tick]; ok && id != 0 && at.Sub(p) < delay*interval-interval {
					t.Fatalf("observer applied tick %d %v after player %d, want at least %v", tick, at.Sub(p), id, delay*interval)
				}
			}
		}
		if n == 0 {
			t.Fatal("the observer applied no frame")
		}
		if st := rn.stats(); st.Rejected != 0 {
			t.Errorf("the relay refused %d messages", st.Rejected)
		}
	})
}
