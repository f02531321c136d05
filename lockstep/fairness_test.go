package lockstep_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
)

// contestInput records where each player's contest orders land: the
// tick and the index in it of each Move naming a contest's unit.
type contestInput struct {
	mu    sync.Mutex
	place map[[2]uint32][2]int // {contest, player} → {tick, index}
}

func (c *contestInput) frame(t protocol.TickOrders) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, o := range t.Orders {
		if m, ok := o.Order.(protocol.Move); ok && len(m.Units) == 1 {
			k := [2]uint32{uint32(m.Units[0]), uint32(o.Player)}
			if _, seen := c.place[k]; !seen {
				c.place[k] = [2]int{int(t.Tick), i}
			}
		}
	}
}

// recordingSim applies nothing, like LightSim, and shows each tick to a
// contestInput.
type recordingSim struct {
	lockstep.LightSim
	in *contestInput
}

func (r recordingSim) ApplyTick(t protocol.TickOrders) error { r.in.frame(t); return nil }

// TestFairnessRealClient is the sub-tick fairness claim with the lockstep
// client itself over netsim: a player 20 ms away and one 150 ms away,
// both with jittery paths (10 and 30 ms) and clocks off by +37 and −120
// ms, through a relay of the ranked profile (its outlier clip widened to
// take the far path, as TestFairness does). After 30 s of play, both
// players' clients submit an order at the same instant once every ten
// ticks, 600 times; under 1% of the orders is lost, each lost one was told
// to its client as late, and the far one comes first in 42–58% of the
// contests (45–51% measured: the far client's submit offset, pushed up by
// the late submissions of the jitter's tail, costs it a few). (Before the client echoed a frame 100 ms older
// than its newest, its echo made the far path look shorter to the relay
// and the far player lost most of the contests.)
func TestFairnessRealClient(t *testing.T) {
	const contests = 600
	synctest.Test(t, func(t *testing.T) {
		prof := relay.Ranked()
		prof.OneWayClip = 200 * time.Millisecond
		rn := startRelay(t, server.Config{}, lockstepserver.Config{Relay: relay.Config{Profile: prof}})
		defer rn.close()
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		links := []netsim.Link{{Latency: 20 * time.Millisecond, Jitter: 10 * time.Millisecond}, {Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond}}
		offsets := []time.Duration{37 * time.Millisecond, -120 * time.Millisecond}
		base := time.Now()
		in := &contestInput{place: map[[2]uint32][2]int{}}
		rcs := make([]*lockstep.RelayClient, 2)
		var joined sync.WaitGroup
		for i := range rcs {
			joined.Go(func() {
				conn, err := rn.dial(ctx, links[i], uint64(i+7))
				if err != nil {
					t.Error(err)
					return
				}
				clock := func() time.Duration { return time.Since(base) + offsets[i] }
				rc, err := lockstep.JoinRelay(ctx, conn, "match", 2, lockstep.RelayClientConfig{Clock: clock, Rand: fixedRand(i * 31)})
				if err != nil {
					t.Error(err)
					return
				}
				rcs[i] = rc
			})
		}
		joined.Wait()
		if t.Failed() {
			return
		}
		loopCtx, stop := context.WithCancel(ctx)
		var loops sync.WaitGroup
		for _, rc := range rcs {
			defer rc.Close()
			loops.Go(func() {
				loop := lockstep.GameLoop{Sim: recordingSim{in: in}, Net: rc, Input: noOrders{}}
				for loopCtx.Err() == nil {
					if n, err := loop.Step(); err != nil || n > 0 {
						continue
					}
					_ = rc.Wait(loopCtx)
				}
			})
		}
		if _, err := rcs[0].AwaitSeed(ctx); err != nil {
			t.Fatal(err)
		}
		// Contest k: both players' clients take an order at one instant,
		// about every ten ticks at a varying point of the window, from
		// 30 s into the match (QoS settled).
		time.Sleep(30 * time.Second)
		for k := range contests {
			time.Sleep(300*time.Millisecond + time.Duration((k*7919)%33_333)*time.Microsecond)
			for _, rc := range rcs {
				rc.SubmitOrder(protocol.TimestampedOrder{Player: rc.PlayerID(), Order: protocol.Move{Units: []protocol.EntityID{protocol.EntityID(k)}}})
			}
		}
		time.Sleep(2 * time.Second)
		stop()
		loops.Wait()
		farFirst, both := 0, 0
		var lost [2]int
		for k := range contests {
			var at [2][2]int
			var ok [2]bool
			for i, rc := range rcs {
				at[i], ok[i] = in.place[[2]uint32{uint32(k), uint32(rc.PlayerID())}]
				if !ok[i] {
					lost[i]++
				}
			}
			if ok[0] && ok[1] {
				both++
				if at[1][0] < at[0][0] || at[1][0] == at[0][0] && at[1][1] < at[0][1] {
					farFirst++
				}
			}
		}
		pct := 100 * float64(farFirst) / float64(both)
		t.Logf("far player first in %d of %d contests (%.1f%%); lost near %d, far %d; far's submit offset %v", farFirst, both, pct, lost[0], lost[1], rcs[1].SubmitOffset())
		for i, rc := range rcs {
			d := rc.Diagnostics()
			if lost[i]*100 >= contests || lost[i] > d.LateOrders {
				t.Errorf("player %d lost %d of %d orders, told of %d late submissions", i+1, lost[i], contests, d.LateOrders)
			}
		}
		if pct < 42 || pct > 58 {
			t.Errorf("far player first in %.1f%% of the contests, want about half", pct)
		}
	})
}
