package lockstep_test

import (
	"context"
	"fmt"
	"net"
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
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
	"github.com/tickwire/tickwire/transport"
)

// rejoinRelay starts a relay whose rooms take rejoins (and observers with
// the room option delay_ticks = delay).
func rejoinRelay(t *testing.T, delay uint32, events func(relay.Event)) *relayNet {
	var mu sync.Mutex
	return startRelay(t, server.Config{}, lockstepserver.Config{Relay: relay.Config{Rejoin: relay.RejoinConfig{Enabled: true}}, DelayTicks: delay,
		OnEvent: func(_ string, ev relay.Event) {
			if events != nil {
				mu.Lock()
				events(ev)
				mu.Unlock()
			}
		}})
}

// dialCut is dial with a way to cut the connection's socket, as a crash
// or a lost network would: the relay hears nothing more from it.
func (rn *relayNet) dialCut(ctx context.Context, link netsim.Link, seed uint64) (*transport.Conn, func(), error) {
	pc, err := rn.mn.ListenPacket("")
	if err != nil {
		return nil, nil, err
	}
	var w net.PacketConn = pc
	if link != (netsim.Link{}) {
		w = netsim.Wrap(pc, netsim.Config{Seed: seed, Out: link, In: link})
	}
	conn, err := transport.Dial(ctx, w, rn.l.Addr(), lanes.TransportConfig())
	return conn, func() { pc.Close() }, err
}

// dropPlan makes a player vanish after applying tick at and rejoin after.
type dropPlan struct {
	player protocol.PlayerID
	at     uint64
	after  time.Duration
	// lie, if set, wraps the player's simulation when it donates.
	times int // drops, each at at + k*gap
	gap   uint64
}

// rejoinResult is result plus what a rejoining player measured.
type rejoinResult struct {
	result
	rejoins   int
	loaded    bool
	rejected  int
	reconnect []time.Duration // drop to caught up
}

// awaitRefGame builds the reference game of rc's match once its seed is
// agreed: the map, the simulation and the player's bot.
func awaitRefGame(ctx context.Context, rc *lockstep.RelayClient) (*sim.Sim, lockstep.OrderSource, error) {
	seed, err := rc.AwaitSeed(ctx)
	if err != nil {
		return nil, nil, err
	}
	id := rc.PlayerID()
	m, cfg, err := scenario.Generate(scenario.Params{Players: rc.RoomSize(), Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	s, err := sim.New(m, cfg, seed)
	if err != nil {
		return nil, nil, err
	}
	return s, &bot.Input{Bot: bot.New(id, seed), Sim: s}, nil
}

// playRejoining plays like playGame and follows plan when the player is
// plan.player: it cuts its socket after applying tick plan.at, waits
// plan.after and rejoins on a new connection, with the same simulation.
func playRejoining(ctx context.Context, rn *relayNet, rc *lockstep.RelayClient, cut func(), link netsim.Link, ticks uint64, plan dropPlan, wrap func(lockstep.Simulation) lockstep.Simulation) rejoinResult {
	r := rejoinResult{result: result{id: rc.PlayerID(), model: rc}}
	s, input, err := awaitRefGame(ctx, rc)
	if err != nil {
		r.err = err
		return r
	}
	r.seed = s.Seed()
	var game lockstep.Simulation = s
	if wrap != nil {
		game = wrap(s)
	}
	loop := lockstep.GameLoop{Sim: game, Net: rc, Input: input, Clock: func() time.Duration { return time.Duration(time.Now().UnixNano()) }}
	drops := 0
	var droppedAt time.Time
	r.err = runLoop(ctx, rc, &loop, ticks, func() error {
		if !droppedAt.IsZero() && rc.Status() == lockstep.StatusPlaying {
			r.reconnect = append(r.reconnect, time.Since(droppedAt))
			droppedAt = time.Time{}
		}
		if rc.PlayerID() != plan.player || drops >= plan.times || loop.Applied() != plan.at+uint64(drops)*plan.gap+1 || !droppedAt.IsZero() {
			return nil
		}
		cut()
		droppedAt = time.Now()
		drops++
		time.Sleep(plan.after)
		conn, c2, err := rn.dialCut(ctx, link, uint64(100+drops))
		if err != nil {
			return err
		}
		cut = c2
		r.rejoins++
		return rc.Rejoin(ctx, conn)
	})
	r.loaded, r.rejected = loop.Loaded, loop.Rejected
	r.hash, r.ticks, r.diag, r.status = s.StateHash(), loop.Applied(), rc.Diagnostics(), rc.Status()
	return r
}

// runRejoinMatch plays a match of n players over link in which plan's
// player drops and rejoins; wrap, if set, wraps player liar's simulation.
func runRejoinMatch(t *testing.T, rn *relayNet, n int, link netsim.Link, ticks uint64, plan dropPlan, liar protocol.PlayerID, wrap func(lockstep.Simulation) lockstep.Simulation) []rejoinResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	out := make(chan rejoinResult, n)
	for i := range n {
		go func() {
			conn, cut, err := rn.dialCut(ctx, link, uint64(i+1))
			if err != nil {
				out <- rejoinResult{result: result{err: err}}
				return
			}
			rc, err := lockstep.JoinRelay(ctx, conn, "match", n, lockstep.RelayClientConfig{Rand: fixedRand(i * 31)})
			if err != nil {
				out <- rejoinResult{result: result{err: err}}
				return
			}
			var w func(lockstep.Simulation) lockstep.Simulation
			if rc.PlayerID() == liar {
				w = wrap
			}
			r := playRejoining(ctx, rn, rc, cut, link, ticks, plan, w)
			rc.Close()
			out <- r
		}()
	}
	res := make([]rejoinResult, n)
	for i := range res {
		res[i] = <-out
	}
	return res
}

// checkRejoined fails unless everyone, the rejoined player included,
// finished every tick with the same hash, and the player came back.
func checkRejoined(t *testing.T, res []rejoinResult, ticks uint64, plan dropPlan) {
	t.Helper()
	plain := make([]result, len(res))
	for i, r := range res {
		plain[i] = r.result
		if r.id == plan.player {
			if r.rejoins != plan.times || len(r.reconnect) != plan.times || !r.loaded {
				t.Errorf("player %d rejoined %d times (%d caught up, snapshot loaded %v), want %d", r.id, r.rejoins, len(r.reconnect), r.loaded, plan.times)
			}
			t.Logf("player %d: reconnected in %v", r.id, r.reconnect)
		}
	}
	checkInSync(t, plain, ticks)
}

// TestRejoinUnderLoss is the acceptance run: a 4-player match
// over links with 5% loss (and 30 ± 10 ms each way) in which one player
// vanishes (its socket cut) at a drop tick and rejoins 2 s later through
// a donor's snapshot: everyone, the rejoined player included, ends with
// the same hash, at several drop ticks.
func TestRejoinUnderLoss(t *testing.T) {
	drops := []uint64{40, 250, 700}
	if testing.Short() || raceEnabled {
		drops = drops[:2]
	}
	for _, at := range drops {
		t.Run(fmt.Sprint("drop_at_", at), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var loaded []relay.SnapshotLoaded
				rn := rejoinRelay(t, 0, func(ev relay.Event) {
					if e, ok := ev.(relay.SnapshotLoaded); ok {
						loaded = append(loaded, e)
					}
				})
				defer rn.close()
				link := netsim.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
				ticks := at + 300
				plan := dropPlan{player: 2, at: at, after: 2 * time.Second, times: 1}
				res := runRejoinMatch(t, rn, 4, link, ticks, plan, 0, nil)
				checkRejoined(t, res, ticks, plan)
				if len(loaded) != 1 || loaded[0].To != 2 || loaded[0].Donor == 2 {
					t.Errorf("snapshots loaded: %+v", loaded)
				}
			})
		})
	}
}
