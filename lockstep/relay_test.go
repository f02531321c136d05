package lockstep_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/hostrelay"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// fixedRand is a deterministic byte source for seed contributions.
type fixedRand byte

func (r fixedRand) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r) + byte(i)
	}
	return len(p), nil
}

// relayNet is a relay server listening on an in-memory network.
type relayNet struct {
	mn       *netsim.MemNetwork
	l        *transport.Listener
	srv      *server.Server
	lockstep *lockstepserver.Lockstep
	done     chan error
}

// startRelay starts a server hosting the lockstep model with cfg and ls
// (ls[0] if given).
func startRelay(t *testing.T, cfg server.Config, ls ...lockstepserver.Config) *relayNet {
	t.Helper()
	var lc lockstepserver.Config
	if len(ls) > 0 {
		lc = ls[0]
	}
	model := lockstepserver.New(lc)
	cfg.Models = append(cfg.Models, model.Model())
	mn := netsim.NewMemNetwork()
	pc, err := mn.ListenPacket("")
	if err != nil {
		t.Fatal(err)
	}
	l, err := transport.Listen(t.Context(), pc, lanes.TransportConfig())
	if err != nil {
		t.Fatal(err)
	}
	rn := &relayNet{mn: mn, l: l, srv: server.New(cfg), lockstep: model, done: make(chan error, 1)}
	go func() { rn.done <- rn.srv.Serve(context.Background(), l) }()
	return rn
}

// relayStats are the server's figures and its lockstep model's.
type relayStats struct {
	server.Stats
	lockstepStats
}

type lockstepStats = lockstepserver.Stats

// stats returns the server's figures and its lockstep model's.
func (rn *relayNet) stats() relayStats { return relayStats{rn.srv.Stats(), rn.lockstep.Stats()} }

func (rn *relayNet) close() {
	rn.l.Close()
	<-rn.done
	rn.srv.Close()
}

// dial connects a client over a link impaired both ways by link.
func (rn *relayNet) dial(ctx context.Context, link netsim.Link, seed uint64) (*transport.Conn, error) {
	pc, err := rn.mn.ListenPacket("")
	if err != nil {
		return nil, err
	}
	var w net.PacketConn = pc
	if link != (netsim.Link{}) {
		w = netsim.Wrap(pc, netsim.Config{Seed: seed, Out: link, In: link})
	}
	return transport.Dial(ctx, w, rn.l.Addr(), lanes.TransportConfig())
}

// result is what one player's game produced.
type result struct {
	id    protocol.PlayerID
	hash  uint64
	ticks uint64
	diag  lockstep.Diagnostics
	seed  uint64
	err   error
	model *lockstep.RelayClient
	// status is the model's status when the game loop stopped.
	status lockstep.Status
}

// playGame runs the reference simulation with a bot through GameLoop on
// rc until ticks ticks are applied or the model ends.
func playGame(ctx context.Context, rc *lockstep.RelayClient, ticks uint64) result {
	return playThrough(ctx, rc, rc, ticks)
}

// playThrough is playGame with the game loop talking to net, a wrapper
// of rc.
func playThrough(ctx context.Context, rc *lockstep.RelayClient, net lockstep.NetworkModel, ticks uint64) result {
	r := result{id: rc.PlayerID(), model: rc}
	s, input, err := awaitRefGame(ctx, rc)
	if err != nil {
		r.err = err
		return r
	}
	r.seed = s.Seed()
	loop := lockstep.GameLoop{Sim: s, Net: net, Input: input}
	r.err = runLoop(ctx, rc, &loop, ticks, nil)
	r.hash, r.ticks, r.diag, r.status = s.StateHash(), loop.Applied(), rc.Diagnostics(), rc.Status()
	return r
}

// runLoop steps loop until it applied ticks ticks, waiting on rc when
// nothing is confirmed; before, if set, runs ahead of every step.
func runLoop(ctx context.Context, rc *lockstep.RelayClient, loop *lockstep.GameLoop, ticks uint64, before func() error) error {
	for loop.Applied() < ticks {
		if before != nil {
			if err := before(); err != nil {
				return err
			}
		}
		n, err := loop.Step()
		if err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if st := rc.Status(); st >= lockstep.StatusEnded {
			return fmt.Errorf("model %v after %d ticks: %v", st, loop.Applied(), rc.Err())
		}
		if err := rc.Wait(ctx); err != nil {
			return err
		}
	}
	return nil
}

// runMatch plays a match of n bots through the relay, each over link,
// for ticks ticks, and returns each player's result.
func runMatch(t *testing.T, rn *relayNet, n int, link netsim.Link, ticks uint64) []result {
	return runMatchWith(t, rn, n, link, func(protocol.PlayerID) uint64 { return ticks }, nil)
}

// longMatchTicks is the length of the long matches: 3,000 ticks, 600
// under the race detector, 300 with -short.
func longMatchTicks() uint64 {
	switch {
	case testing.Short():
		return 300
	case raceEnabled:
		return 600
	}
	return 3000
}

// runMatchWith is runMatch with a number of ticks for each player, after
// which the player leaves, and, if clockOf is not nil, the clock of the
// i-th client to join.
func runMatchWith(t *testing.T, rn *relayNet, n int, link netsim.Link, ticksOf func(protocol.PlayerID) uint64, clockOf func(i int) func() time.Duration) []result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	out := make(chan result, n)
	for i := range n {
		go func() {
			conn, err := rn.dial(ctx, link, uint64(i+1))
			if err != nil {
				out <- result{err: err}
				return
			}
			cfg := lockstep.RelayClientConfig{Rand: fixedRand(i * 31)}
			if clockOf != nil {
				cfg.Clock = clockOf(i)
			}
			rc, err := lockstep.JoinRelay(ctx, conn, "match", n, cfg)
			if err != nil {
				out <- result{err: err}
				return
			}
			r := playGame(ctx, rc, ticksOf(rc.PlayerID()))
			rc.Close()
			out <- r
		}()
	}
	res := make([]result, n)
	for i := range res {
		res[i] = <-out
	}
	return res
}

// checkInSync fails unless every player finished with the same hash and
// no desync.
func checkInSync(t *testing.T, res []result, ticks uint64) {
	t.Helper()
	for _, r := range res {
		if r.err != nil {
			t.Fatalf("player %d: %v", r.id, r.err)
		}
		if r.ticks != ticks {
			t.Errorf("player %d applied %d ticks, want %d", r.id, r.ticks, ticks)
		}
		if r.hash != res[0].hash || r.seed != res[0].seed {
			t.Errorf("player %d: hash %016x seed %x, player %d: hash %016x seed %x", r.id, r.hash, r.seed, res[0].id, res[0].hash, res[0].seed)
		}
		if r.diag.Desyncs != 0 {
			t.Errorf("player %d saw %d desyncs (first at tick %d)", r.id, r.diag.Desyncs, r.diag.DesyncTick)
		}
	}
}

func TestRelayMatchTwoPlayers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		const ticks = 300
		res := runMatch(t, rn, 2, netsim.Link{Latency: 20 * time.Millisecond}, ticks)
		checkInSync(t, res, ticks)
		for _, r := range res {
			t.Logf("player %d: hash %016x, %d orders sent, %d late, run-ahead %d, rtt %v", r.id, r.hash, r.diag.OrdersSent, r.diag.LateOrders, r.diag.RunAhead, r.diag.RTT)
		}
		// On a clean path every submission makes its tick.
		if st := rn.stats(); st.LateOrders != 0 || st.Strikes != 0 || st.Rejected != 0 {
			t.Errorf("relay: %d late submissions, %d strikes, %d rejected messages", st.LateOrders, st.Strikes, st.Rejected)
		}
		for _, r := range res {
			if r.diag.LateOrders != 0 || r.diag.LateTicks != 0 || r.diag.Strikes != 0 || r.diag.OrdersSent == 0 {
				t.Errorf("player %d: %d late submissions, %d late ticks, %d strikes, %d orders sent", r.id, r.diag.LateOrders, r.diag.LateTicks, r.diag.Strikes, r.diag.OrdersSent)
			}
		}
	})
}

// TestRelayMatchEightPlayersLossy is the acceptance run: 8 bots,
// each over a link with 10% loss and 60 ms ± 20 ms latency each way, for
// 3,000 ticks (600 under the race detector, 300 with -short); every final
// hash must agree and no desync may be reported.
func TestRelayMatchEightPlayersLossy(t *testing.T) {
	ticks := longMatchTicks()
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		link := netsim.Link{Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.10}
		start := time.Now()
		res := runMatch(t, rn, 8, link, ticks)
		checkInSync(t, res, ticks)
		st := rn.stats()
		t.Logf("%d ticks in %v of virtual time; relay: %d late submissions, %d strikes, %d removals, %d QoS adjustments, %d desyncs, %d B in, %d B out",
			ticks, time.Since(start), st.LateOrders, st.Strikes, st.Removals, st.QosAdjustments, st.Desyncs, st.BytesIn, st.BytesOut)
		notices := 0
		for _, r := range res {
			t.Logf("player %d: %d orders sent, %d late submissions (last by %v), %d late ticks, %d strikes, run-ahead %d, rtt %v, loss %.2f, clock correction %v, %d steps",
				r.id, r.diag.OrdersSent, r.diag.LateOrders, r.diag.LastLateBy, r.diag.LateTicks, r.diag.Strikes, r.diag.RunAhead, r.diag.RTT, r.diag.Loss, r.diag.ClockCorrection, r.diag.ClockSteps)
			notices += r.diag.LateOrders
		}
		if notices == 0 || uint64(notices) > st.LateOrders {
			t.Errorf("clients were told of %d late submissions, the relay counted %d", notices, st.LateOrders)
		}
		if st.Desyncs != 0 {
			t.Errorf("relay counted %d desyncs", st.Desyncs)
		}
		if st.BroadcastLateness.Count < ticks || st.GamesEnded != 1 {
			t.Errorf("relay broadcast %d frames, ended %d games", st.BroadcastLateness.Count, st.GamesEnded)
		}
	})
}

// TestRelayMatchDriftingClocks: the server-level counterpart of
// TestClientClockDrift, through the real server and transport: three
// bots, one clock 0.1% fast, one 0.1% slow (injected with
// RelayClientConfig.Clock), 3,000 ticks (600 under the race detector, 300
// with -short). A client that kept its calibrated offset would be 100 ms,
// three windows, off by the end: its submissions refused as too early or
// all late. With the offset tracked none is refused, struck or removed.
func TestRelayMatchDriftingClocks(t *testing.T) {
	ticks := longMatchTicks()
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		ppms := []int64{1000, -1000, 0}
		res := runMatchWith(t, rn, len(ppms), netsim.Link{Latency: 25 * time.Millisecond, Jitter: 5 * time.Millisecond},
			func(protocol.PlayerID) uint64 { return ticks },
			func(i int) func() time.Duration {
				epoch := time.Now()
				return func() time.Duration {
					d := time.Since(epoch)
					return time.Hour + d + time.Duration(int64(d)*ppms[i]/1e6)
				}
			})
		checkInSync(t, res, ticks)
		st := rn.stats()
		t.Logf("relay: %d late submissions, %d strikes, %d removals, %d refused messages", st.LateOrders, st.Strikes, st.Removals, st.Rejected)
		for _, r := range res {
			t.Logf("player %d: %d late submissions, %d late ticks, clock correction %v, drift %.0f ppm, %d steps",
				r.id, r.diag.LateOrders, r.diag.LateTicks, r.diag.ClockCorrection, r.diag.ClockDriftPPM, r.diag.ClockSteps)
		}
		if st.Strikes != 0 || st.Removals != 0 || st.Rejected != 0 || st.LateOrders > ticks/100 {
			t.Errorf("relay: %d late submissions, %d strikes, %d removals, %d refused messages", st.LateOrders, st.Strikes, st.Removals, st.Rejected)
		}
	})
}

// TestRelayDisconnectSameTick: a player that leaves mid-game is removed
// on the same tick at every remaining client, and the others play on in
// sync.
func TestRelayDisconnectSameTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		const ticks, leaver, leaveAfter = 300, 3, 100
		res := runMatchWith(t, rn, 4, netsim.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05},
			func(id protocol.PlayerID) uint64 {
				if id == leaver {
					return leaveAfter
				}
				return ticks
			}, nil)
		var stayed []result
		var at uint64
		for _, r := range res {
			if r.id == leaver {
				continue
			}
			stayed = append(stayed, r)
			removed := r.model.Removed()
			if len(removed) != 1 || removed[0].Player != leaver || removed[0].Reason != msg.ReasonLeft {
				t.Fatalf("player %d saw removals %+v, want player %d leaving", r.id, removed, leaver)
			}
			if at == 0 {
				at = removed[0].AtTick
			}
			if removed[0].AtTick != at {
				t.Errorf("player %d removed player %d at tick %d, another client at %d", r.id, leaver, removed[0].AtTick, at)
			}
		}
		if at <= leaveAfter || at >= ticks {
			t.Errorf("removal at tick %d, want after %d and before %d", at, leaveAfter, ticks)
		}
		checkInSync(t, stayed, ticks)
	})
}

// TestEmbeddedRelayTwoPlayers: a host plays through its in-process relay
// against a remote player; both end in the same state.
func TestEmbeddedRelayTwoPlayers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		mn := netsim.NewMemNetwork()
		pc, err := mn.ListenPacket("")
		if err != nil {
			t.Fatal(err)
		}
		l, err := transport.Listen(ctx, pc, lanes.TransportConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		host, err := hostrelay.Start(ctx, l, 2, hostrelay.Config{Client: lockstep.RelayClientConfig{Rand: fixedRand(1)}})
		if err != nil {
			t.Fatal(err)
		}
		defer host.Close()
		if host.PlayerID() != 1 {
			t.Fatalf("host is player %d, want 1", host.PlayerID())
		}
		const ticks = 300
		remote := make(chan result, 1)
		go func() {
			cpc, err := mn.ListenPacket("")
			if err != nil {
				remote <- result{err: err}
				return
			}
			link := netsim.Link{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
			conn, err := transport.Dial(ctx, netsim.Wrap(cpc, netsim.Config{Seed: 9, Out: link, In: link}), l.Addr(), lanes.TransportConfig())
			if err != nil {
				remote <- result{err: err}
				return
			}
			rc, err := lockstep.JoinRelay(ctx, conn, hostrelay.DefaultRoom, 2, lockstep.RelayClientConfig{Rand: fixedRand(2)})
			if err != nil {
				remote <- result{err: err}
				return
			}
			r := playGame(ctx, rc, ticks)
			rc.Close()
			remote <- r
		}()
		h := playGame(ctx, host.RelayClient, ticks)
		r := <-remote
		checkInSync(t, []result{h, r}, ticks)
		st := host.Server().Stats()
		if st.GamesStarted != 1 || st.MessagesIn == 0 {
			t.Errorf("relay stats %+v", st)
		}
		if h.diag.OrdersSent == 0 || r.diag.OrdersSent == 0 {
			t.Errorf("orders sent: host %d, remote %d", h.diag.OrdersSent, r.diag.OrdersSent)
		}
		t.Logf("host: %d orders, rtt %v; remote: %d orders, rtt %v, run-ahead %d", h.diag.OrdersSent, h.diag.RTT, r.diag.OrdersSent, r.diag.RTT, r.diag.RunAhead)
	})
}

// TestRelayRemovesFrozenClient: a client that keeps its connection and
// heartbeat but stops applying ticks (its liveness echo goes stale) is
// removed as frozen on the same tick everywhere, and its connection is
// closed; the others play on in sync.
func TestRelayRemovesFrozenClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		ctx := t.Context()
		const n, ticks, frozen, freezeAfter = 3, 400, 2, 60
		out := make(chan result, n)
		for i := range n {
			go func() {
				conn, err := rn.dial(ctx, netsim.Link{Latency: 15 * time.Millisecond}, uint64(i+1))
				if err != nil {
					out <- result{err: err}
					return
				}
				rc, err := lockstep.JoinRelay(ctx, conn, "frozen", n, lockstep.RelayClientConfig{Rand: fixedRand(i)})
				if err != nil {
					out <- result{err: err}
					return
				}
				defer rc.Close()
				if rc.PlayerID() != frozen {
					out <- playGame(ctx, rc, ticks)
					return
				}
				r := playGame(ctx, rc, freezeAfter)
				for rc.Status() < lockstep.StatusEnded { // stop polling; the heartbeat goes on
					time.Sleep(100 * time.Millisecond)
				}
				out <- r
			}()
		}
		var stayed []result
		for range n {
			r := <-out
			if r.id == frozen {
				if st := r.model.Status(); st != lockstep.StatusDisconnected {
					t.Errorf("frozen client ended %v", st)
				}
				continue
			}
			stayed = append(stayed, r)
		}
		checkInSync(t, stayed, ticks)
		first := stayed[0].model.Removed()
		for _, r := range stayed {
			removed := r.model.Removed()
			if len(removed) != 1 || removed[0] != first[0] || removed[0].Player != frozen || removed[0].Reason != msg.ReasonFrozen {
				t.Fatalf("player %d saw removals %+v, player %d %+v", r.id, removed, stayed[0].id, first)
			}
		}
	})
}

// lyingHash reports a wrong state hash for one tick.
type lyingHash struct {
	lockstep.NetworkModel
	tick uint64
}

func (l lyingHash) ReportSyncHash(tick, hash uint64) {
	if tick == l.tick {
		hash ^= 1
	}
	l.NetworkModel.ReportSyncHash(tick, hash)
}

// TestRelayReportsDesync: one client's diverging hash on a checked tick
// makes the relay tell every client, which report it in Status and
// Diagnostics.
func TestRelayReportsDesync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		ctx := t.Context()
		const n, ticks, liar, badTick = 2, 120, 2, 30
		out := make(chan result, n)
		for i := range n {
			go func() {
				conn, err := rn.dial(ctx, netsim.Link{Latency: 10 * time.Millisecond}, uint64(i+1))
				if err != nil {
					out <- result{err: err}
					return
				}
				rc, err := lockstep.JoinRelay(ctx, conn, "desync", n, lockstep.RelayClientConfig{Rand: fixedRand(i)})
				if err != nil {
					out <- result{err: err}
					return
				}
				defer rc.Close()
				var net lockstep.NetworkModel = rc
				if rc.PlayerID() == liar {
					net = lyingHash{rc, badTick}
				}
				out <- playThrough(ctx, rc, net, ticks)
			}()
		}
		for range n {
			r := <-out
			if r.err != nil {
				t.Fatalf("player %d: %v", r.id, r.err)
			}
			if r.diag.Desyncs != 1 || r.diag.DesyncTick != badTick || r.status != lockstep.StatusDesynced {
				t.Errorf("player %d: %d desyncs, first at %d, status %v", r.id, r.diag.Desyncs, r.diag.DesyncTick, r.status)
			}
		}
		if st := rn.stats(); st.Desyncs != 1 {
			t.Errorf("relay counted %d desyncs", st.Desyncs)
		}
	})
}

// TestJoinRelayRefused: a refused join is a *join.JoinError that matches
// join.ErrRefused and the reason's sentinel.
func TestJoinRelayRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{MaxGames: 1})
		defer rn.close()
		ctx := t.Context()
		joinRoom := func(room string) (*lockstep.RelayClient, error) {
			conn, err := rn.dial(ctx, netsim.Link{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			return lockstep.JoinRelay(ctx, conn, room, 2, lockstep.RelayClientConfig{})
		}
		first, err := joinRoom("a")
		if err != nil {
			t.Fatal(err)
		}
		defer first.Close()
		if first.Status() != lockstep.StatusConnecting || first.PlayerID() != 1 || first.RoomSize() != 2 || first.TickRate() != 30 {
			t.Errorf("waiting player: status %v, id %d, room size %d, tick rate %d", first.Status(), first.PlayerID(), first.RoomSize(), first.TickRate())
		}
		_, err = joinRoom("b")
		var je *join.JoinError
		if !errors.Is(err, join.ErrRefused) || !errors.Is(err, join.ErrServerFull) || !errors.As(err, &je) || je.Reason != join.RefuseServerFull {
			t.Fatalf("second game: %v", err)
		}
	})
}
