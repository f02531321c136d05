package lockstep_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// timing is what a player's submissions' arrival did: the relay's late
// submissions and the timing feedback the client acted on.
type timing struct {
	lateEvents   int           // the relay's LateSubmission events
	lateOrders   int           // late notices the client received
	lateTicks    int           // late ticks reported by TimingFeedback
	strikes      int           // strikes reported to the client
	submitOffset time.Duration // where TimingFeedback moved the client's send time
	ticks        uint64
}

// floodMatch plays a three-player match; with flood, player 3 also sends
// floodPerMs messages every millisecond of play. It returns each player's
// timing and the server's figures.
func floodMatch(t *testing.T, flood bool) (map[protocol.PlayerID]timing, relayStats) {
	const ticks, floodPerMs = 240, 100
	var mu sync.Mutex
	late := map[protocol.PlayerID]int{}
	rn := startRelay(t, server.Config{}, lockstepserver.Config{OnEvent: func(_ string, ev relay.Event) {
		// Submissions after the last tick played are the match's end,
		// when players stop at different times.
		if e, ok := ev.(relay.LateSubmission); ok && e.Tick < ticks {
			mu.Lock()
			late[e.Player]++
			mu.Unlock()
		}
	}})
	defer rn.close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	link := netsim.Link{Latency: 20 * time.Millisecond}
	// Join one at a time: player ids and seeds are the same in every run.
	var clients []*lockstep.RelayClient
	var conns []*transport.Conn
	for i := range 3 {
		conn, err := rn.dial(ctx, link, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := lockstep.JoinRelay(ctx, conn, "match", 3, lockstep.RelayClientConfig{Rand: fixedRand(i * 31)})
		if err != nil {
			t.Fatal(err)
		}
		clients, conns = append(clients, rc), append(conns, conn)
	}
	floodCtx, stopFlood := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if flood {
		// Messages that decode (so the old reader queued them) and that
		// the core refuses during play without effect on anyone's timing.
		pong, err := msg.Codec{}.Append(nil, &msg.CalibrationPong{Seq: 999})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if _, err := clients[2].AwaitSeed(floodCtx); err != nil {
				return
			}
			for floodCtx.Err() == nil {
				for range floodPerMs {
					conns[2].Send(lanes.Control, pong)
				}
				conns[2].Flush()
				time.Sleep(time.Millisecond)
			}
		})
	}
	out := make([]result, 3)
	for i, rc := range clients {
		wg.Go(func() {
			out[i] = playGame(ctx, rc, ticks)
			if i == 2 {
				stopFlood()
			}
		})
	}
	wg.Wait()
	stopFlood()
	st := rn.stats()
	for _, rc := range clients {
		rc.Close()
	}
	got := map[protocol.PlayerID]timing{}
	mu.Lock()
	defer mu.Unlock()
	for i, r := range out {
		got[r.id] = timing{lateEvents: late[r.id], lateOrders: r.diag.LateOrders, lateTicks: r.diag.LateTicks,
			strikes: r.diag.Strikes, submitOffset: clients[i].SubmitOffset(), ticks: r.ticks}
	}
	return got, st
}

// TestFloodDoesNotDelayOthers: one player flooding the relay with
// messages changes nothing in the other players' arrival timing — not
// their late submissions, the relay's timing feedback to them nor the
// send times it steers them to — because each connection's messages are
// rate-limited before the room's shared queue. In virtual time the two
// runs are compared exactly.
func TestFloodDoesNotDelayOthers(t *testing.T) {
	var quiet, flooded map[protocol.PlayerID]timing
	var st relayStats
	synctest.Test(t, func(t *testing.T) { quiet, _ = floodMatch(t, false) })
	synctest.Test(t, func(t *testing.T) { flooded, st = floodMatch(t, true) })
	if st.RateLimited == 0 {
		t.Fatalf("the flood was not rate-limited: %+v", st)
	}
	t.Logf("flood: %d messages rate-limited, %d reached the room, %d refused by the core", st.RateLimited, st.MessagesIn, st.Rejected)
	for id := protocol.PlayerID(1); id <= 2; id++ {
		q, f := quiet[id], flooded[id]
		t.Logf("player %d: quiet %+v, flooded %+v", id, q, f)
		if q != f {
			t.Errorf("player %d's timing changed under player 3's flood:\n quiet   %+v\n flooded %+v", id, q, f)
		}
		if q.ticks != 240 {
			t.Errorf("player %d played %d ticks", id, q.ticks)
		}
	}
}
