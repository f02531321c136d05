package lockstep_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
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
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
	"github.com/tickwire/tickwire/transport"
)

// rejoinRelay starts a relay whose rooms take rejoins (and observers with
// the room option delay_ticks = delay).
func rejoinRelay(t *testing.T, delay uint32, events func(relay.Event)) *relayNet {
	return rejoinRelayWith(t, relay.RejoinConfig{Enabled: true}, delay, events)
}

// rejoinRelayWith is rejoinRelay with rc.
func rejoinRelayWith(t *testing.T, rc relay.RejoinConfig, delay uint32, events func(relay.Event)) *relayNet {
	var mu sync.Mutex
	return startRelay(t, server.Config{}, lockstepserver.Config{Relay: relay.Config{Rejoin: rc}, DelayTicks: delay, MaxObservers: lockstepserver.DefaultMaxObservers,
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
	times  int // drops, each at at + k*gap
	gap    uint64
	// onTick, if set, sees every tick every player applies.
	onTick func(id protocol.PlayerID, tick uint64)
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
func playRejoining(ctx context.Context, rn *relayNet, rc *lockstep.RelayClient, cut func(), link netsim.Link, ticks uint64, plan dropPlan, wrap func(*sim.Sim) lockstep.Simulation) rejoinResult {
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
	if plan.onTick != nil {
		loop.OnTick = func(tick, _ uint64) { plan.onTick(rc.PlayerID(), tick) }
	}
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
// player drops and rejoins; wrap, if set, wraps the simulation of every
// player liar names.
func runRejoinMatch(t *testing.T, rn *relayNet, n int, link netsim.Link, ticks uint64, plan dropPlan, liar func(protocol.PlayerID) bool, wrap func(*sim.Sim) lockstep.Simulation) []rejoinResult {
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
			var w func(*sim.Sim) lockstep.Simulation
			if liar != nil && liar(rc.PlayerID()) {
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
	switch {
	case raceEnabled:
		drops = drops[:1]
	case testing.Short():
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
				res := runRejoinMatch(t, rn, 4, link, ticks, plan, nil, nil)
				checkRejoined(t, res, ticks, plan)
				if len(loaded) != 1 || loaded[0].To != 2 || loaded[0].Donor == 2 {
					t.Errorf("snapshots loaded: %+v", loaded)
				}
			})
		})
	}
}

// liarSim forges every snapshot it takes, to donate or to digest as a
// witness, from a player that keeps reporting its honest hashes: with
// collide, forgeCollision's state (one unit's health changed, the same
// StateHash); else the real state with 500 more credits for player 1. Both
// decode, restore and pass every structural check.
type liarSim struct {
	*sim.Sim
	t       *testing.T
	collide bool
}

func (l liarSim) Snapshot() []byte {
	if l.collide {
		b, ok := forgeCollision(l.Sim)
		if !ok {
			l.t.Errorf("tick %d: no colliding forgery found", l.Sim.Tick())
			return l.Sim.Snapshot()
		}
		return b
	}
	b := l.Sim.Snapshot()
	const credits = 35 + 8 + 8 + 4 // header, tick, RNG, next id: player 1's credits
	binary.LittleEndian.PutUint32(b[credits:], binary.LittleEndian.Uint32(b[credits:])+500)
	scratch, _, err := newScratch(l.Sim)
	if err == nil {
		err = scratch.Restore(b)
	}
	if err != nil {
		l.t.Errorf("the forged snapshot does not pass the structural checks: %v", err)
	}
	return b
}

// newScratch is a fresh simulation of s's match.
func newScratch(s *sim.Sim) (*sim.Sim, sim.Config, error) {
	m, cfg, err := scenario.Generate(scenario.Params{Players: s.Players(), Seed: s.Seed()})
	if err != nil {
		return nil, cfg, err
	}
	scratch, err := sim.New(m, cfg, s.Seed())
	return scratch, cfg, err
}

// TestRejoinLyingDonor: one of the three players that stay forges every
// snapshot it takes (a valid state that is not the agreed one, with
// honest hashes; or, colliding, one whose StateHash is the agreed one), as
// a donor and as a witness, each of them in turn. As a
// donor its bytes are not the digest the other two agree on, and the
// relay moves to the next donor before the rejoining player even checks
// them; as a witness it is outvoted by the donor's bytes and the other
// witness. Whoever lies, the rejoining player loads an honest player's
// snapshot and the match ends in sync.
func TestRejoinLyingDonor(t *testing.T) {
	liedAsDonor := 0
	for _, c := range []struct {
		liar    protocol.PlayerID
		collide bool
	}{{1, false}, {3, false}, {4, false}, {1, true}, {3, true}, {4, true}} {
		liar := c.liar
		t.Run(fmt.Sprintf("liar_%d/collide_%v", liar, c.collide), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var failed []relay.DonorFailed
				var loaded []relay.SnapshotLoaded
				rn := rejoinRelay(t, 0, func(ev relay.Event) {
					switch e := ev.(type) {
					case relay.DonorFailed:
						failed = append(failed, e)
					case relay.SnapshotLoaded:
						loaded = append(loaded, e)
					}
				})
				defer rn.close()
				plan := dropPlan{player: 2, at: 80, after: time.Second, times: 1}
				const ticks = 250
				res := runRejoinMatch(t, rn, 4, netsim.Link{Latency: 20 * time.Millisecond}, ticks, plan, func(id protocol.PlayerID) bool { return id == liar },
					func(s *sim.Sim) lockstep.Simulation { return liarSim{Sim: s, t: t, collide: c.collide} })
				checkRejoined(t, res, ticks, plan)
				for _, f := range failed {
					if f.Donor != liar || f.Reason != "donor snapshot not the agreed digest" {
						t.Errorf("donor failure %+v: want only the liar's, for its digest", f)
					}
				}
				liedAsDonor += len(failed)
				if len(loaded) != 1 || loaded[0].Donor == liar {
					t.Errorf("snapshots loaded %+v, want one, from an honest donor", loaded)
				}
			})
		})
	}
	if liedAsDonor < 2 {
		t.Errorf("the liar was a donor %d times, want at least once per forgery: the test proved only the witness half", liedAsDonor)
	}
}

// TestRejoinTimeout: a player that vanishes and never comes back is
// removed for good RejoinConfig.Timeout (60 s; 10 s under the race
// detector or -short) after the relay noticed, on the same tick at every
// client; the others never pause.
func TestRejoinTimeout(t *testing.T) {
	timeout := relay.DefaultRejoinTimeout
	if raceEnabled || testing.Short() {
		timeout = 10 * time.Second
	}
	synctest.Test(t, func(t *testing.T) {
		var away []relay.PlayerAway
		rn := rejoinRelayWith(t, relay.RejoinConfig{Enabled: true, Timeout: timeout}, 0, func(ev relay.Event) {
			if e, ok := ev.(relay.PlayerAway); ok {
				away = append(away, e)
			}
		})
		defer rn.close()
		const at = 60
		secs := uint64(timeout / time.Second)
		ticks := at + (secs+10)*30
		plan := dropPlan{player: 3, at: at, after: time.Hour, times: 1}
		res := runRejoinMatch(t, rn, 3, netsim.Link{Latency: 20 * time.Millisecond}, ticks, plan, nil, nil)
		var stayed []result
		for _, r := range res {
			if r.id == 3 {
				continue
			}
			stayed = append(stayed, r.result)
			removed := r.model.Removed()
			if len(removed) != 1 || removed[0].Player != 3 || removed[0].Reason != msg.ReasonTimeout {
				t.Fatalf("player %d saw removals %+v, want player 3 timed out", r.id, removed)
			}
			// Noticed as frozen (3 s) or silent (5 s), then the
			// deadline and the removal lead (10 ticks).
			if got, lo, hi := removed[0].AtTick, at+(secs+3)*30, at+(secs+5)*30+10; got < lo || got > hi {
				t.Errorf("removed at tick %d, want %d..%d", got, lo, hi)
			}
		}
		if len(away) != 1 || away[0].Player != 3 {
			t.Errorf("away events %+v", away)
		}
		checkInSync(t, stayed, ticks)
	})
}

// TestRejoinCyclingBounded: a player that keeps vanishing and coming back
// gets DefaultMaxRejoins (3) reconnections; its next disconnection
// removes it for good, and its next rejoin is refused.
func TestRejoinCyclingBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := rejoinRelay(t, 0, nil)
		defer rn.close()
		const ticks = 600
		plan := dropPlan{player: 2, at: 60, after: time.Second, times: relay.DefaultMaxRejoins + 1, gap: 110}
		res := runRejoinMatch(t, rn, 3, netsim.Link{Latency: 20 * time.Millisecond}, ticks, plan, nil, nil)
		var stayed []result
		for _, r := range res {
			if r.id != 2 {
				stayed = append(stayed, r.result)
				continue
			}
			if len(r.reconnect) != relay.DefaultMaxRejoins || r.err == nil {
				t.Errorf("player 2 caught up %d times and ended with %v; want %d and an error", len(r.reconnect), r.err, relay.DefaultMaxRejoins)
			}
		}
		for _, r := range stayed {
			removed := r.model.Removed()
			if len(removed) != 1 || removed[0].Player != 2 {
				t.Errorf("player %d saw removals %+v, want player 2's", r.id, removed)
			}
		}
		checkInSync(t, stayed, ticks)
	})
}
