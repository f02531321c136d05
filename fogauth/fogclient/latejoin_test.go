package fogclient_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// truth records, per tick, the entities a spectator may be sent: the
// union of the players' visible sets, or every entity.
type truth struct {
	mu      sync.Mutex
	allowed map[uint64]map[protocol.EntityID]bool
	total   int // entities in the world at the last tick
}

func (tr *truth) onTick(fullMap bool) func(string, *fogauth.Room) {
	return func(_ string, core *fogauth.Room) {
		set := map[protocol.EntityID]bool{}
		ents := core.Game().Entities()
		if fullMap {
			for i := range ents {
				set[ents[i].ID] = true
			}
		} else {
			for p := 1; p <= core.Game().Players(); p++ {
				for _, id := range core.Game().Visible(protocol.PlayerID(p)) {
					set[id] = true
				}
			}
		}
		// The spectator's wire names entities by its aliases; it takes the
		// seat after the players' (client id = seat + 1).
		spectator := fogauth.ClientID(core.Game().Players() + 1)
		aliased := map[protocol.EntityID]bool{}
		for id := range set {
			if al := core.Alias(spectator, id); al != 0 {
				aliased[al] = true
			}
		}
		set = aliased
		tr.mu.Lock()
		tr.allowed[core.Tick()] = set
		tr.total = len(ents)
		tr.mu.Unlock()
	}
}

// updates counts what one client received: StateUpdate bytes per tick
// and the ticks that carried Enters.
type updates struct {
	mu         sync.Mutex
	bytes      map[uint64]int
	enterTicks map[uint64]int // tick → Enters
	outside    int            // Enters and Updates of entities outside the allowed set
	checked    int
}

func newUpdates() *updates {
	return &updates{bytes: map[uint64]int{}, enterTicks: map[uint64]int{}}
}

// observe is a Config.OnStateUpdate; with tr it checks every entity sent
// against tr's set of that tick.
func (u *updates) observe(t *testing.T, tr *truth) func(uint64, []byte) {
	var buf []fogauth.Delta
	return func(tick uint64, data []byte) {
		su, err := fogauth.ParseStateUpdate(data, buf)
		if err != nil {
			t.Errorf("tick %d: %v", tick, err)
			return
		}
		buf = su.Deltas
		var allowed map[protocol.EntityID]bool
		if tr != nil {
			tr.mu.Lock()
			allowed = tr.allowed[tick]
			tr.mu.Unlock()
		}
		u.mu.Lock()
		defer u.mu.Unlock()
		u.bytes[tick] += len(data)
		for _, d := range su.Deltas {
			if d.Kind == fogauth.DeltaEnter {
				u.enterTicks[tick]++
			}
			if tr != nil && d.Kind != fogauth.DeltaLeave {
				u.checked++
				if !allowed[d.Entity.ID] {
					u.outside++
				}
			}
		}
	}
}

// TestRejoinOverServer: a player's connection drops mid-match (closed
// under it at 4 s, about tick 120); PlayBotRejoining dials again and takes
// the seat back with the ticket from its JoinAccepted. The new client
// starts empty: its first ticks carry Enters for everything the player
// sees, spread over several ticks by a small budget (546 bytes a tick),
// and no tick exceeds the budget. Both players end consistent: each
// partial world equals the server's truth of its view. A rejoin with
// another seat's secret is refused. Virtual time, 5% loss each way.
func TestRejoinOverServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fog := fogserver.Config{NewGame: rtsGame, UnitsPerPlayer: 20, MatchTicks: 300, Seed: func() uint64 { return 7 },
			Room: fogauth.Config{BandwidthPerClientKbps: 16}}
		budget := fog.Room.BudgetBytes()
		link := netsim.Link{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}
		dial := startServer(t, fog, link)

		const players = 2
		final := make([]*fogclient.Client, players)
		rejoins := make([]int, players)
		after := newUpdates() // what player 1 received on its second connection
		first := make(chan *transport.Conn, 1)
		tickets := make(chan fogclient.Ticket, players)
		var wg sync.WaitGroup
		for i := range players {
			wg.Go(func() {
				conn := dial(uint64(i + 1))
				c, err := fogclient.Join(t.Context(), conn, "cup", players, fogclient.Config{})
				if err != nil {
					t.Error(err)
					return
				}
				tk, ok := c.Ticket()
				if !ok {
					t.Error("no rejoin ticket")
				}
				tickets <- tk
				cfg := fogclient.Config{}
				if c.Player() == 1 {
					first <- conn
					cfg.OnStateUpdate = after.observe(t, nil)
				}
				redial := func(context.Context) (*transport.Conn, error) { return dial(uint64(10 + i)), nil }
				final[i], rejoins[i], err = fogclient.PlayBotRejoining(t.Context(), c, rtsBot(t, c, 9), 0, redial, cfg, 3)
				if err != nil {
					t.Error(err)
				}
			})
		}
		time.Sleep(4 * time.Second)
		(<-first).Close() // player 1's network goes away
		tk1, tk2 := <-tickets, <-tickets
		if tk1.Player != 1 {
			tk1, tk2 = tk2, tk1
		}
		_, err := fogclient.Rejoin(t.Context(), dial(50), fogclient.Ticket{Room: "cup", RoomSize: 2, Player: 1, Secret: tk2.Secret}, fogclient.Config{})
		wantRefused(t, err, join.RefuseRejoinDenied) // another seat's secret
		wg.Wait()

		for i, c := range final {
			if c == nil {
				continue
			}
			end, consistent, ok := c.End()
			d := c.FogDiagnostics()
			t.Logf("player %d: %d rejoins, %d entities, %d enters, view %d entities, consistent %v", c.Player(), rejoins[i],
				d.EntitiesTracked, d.Counters.World.Enters, end.Entities, consistent)
			if !ok || !consistent {
				t.Errorf("player %d: match end %v, consistent %v", c.Player(), ok, consistent)
			}
			if want := map[protocol.PlayerID]int{1: 1, 2: 0}[c.Player()]; rejoins[i] != want {
				t.Errorf("player %d rejoined %d times, want %d", c.Player(), rejoins[i], want)
			}
			c.Close()
		}
		after.mu.Lock()
		defer after.mu.Unlock()
		enters := 0
		for _, n := range after.enterTicks {
			enters += n
		}
		t.Logf("after the rejoin: %d Enters over %d ticks, budget %d bytes", enters, len(after.enterTicks), budget)
		if len(after.enterTicks) < 2 || enters < 20 {
			t.Errorf("rejoin snapshot: %d Enters over %d ticks; want at least 20 over several", enters, len(after.enterTicks))
		}
		for tick, b := range after.bytes {
			if b > budget {
				t.Errorf("tick %d: %d bytes, budget %d", tick, b, budget)
			}
		}
	})
}

// TestSpectatorsOverServer: a spectator joins a playing room. Every
// entity it is sent (Enter or Update) is in the union of the players'
// visible sets at that tick, or, with full-map spectating, in the world;
// it ends consistent with its view (with full map: every entity of the
// world). Its orders are rejected, a second spectator beyond
// max_spectators is refused. Virtual time, 5% loss each way.
func TestSpectatorsOverServer(t *testing.T) {
	for _, fullMap := range []bool{false, true} {
		name := "union"
		if fullMap {
			name = "full_map"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { spectate(t, fullMap) })
		})
	}
}

func spectate(t *testing.T, fullMap bool) {
	tr := &truth{allowed: map[uint64]map[protocol.EntityID]bool{}}
	fog := fogserver.Config{NewGame: rtsGame, UnitsPerPlayer: 20, MatchTicks: 300, MaxSpectators: 1, Seed: func() uint64 { return 11 },
		Room: fogauth.Config{FullMapSpectators: fullMap}, OnTick: tr.onTick(fullMap)}
	link := netsim.Link{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}
	dial := startServer(t, fog, link)

	const players = 2
	var wg sync.WaitGroup
	clients := make([]*fogclient.Client, players)
	for i := range players {
		wg.Go(func() {
			c, err := fogclient.Join(t.Context(), dial(uint64(i+1)), "final", players, fogclient.Config{})
			if err != nil {
				t.Error(err)
				return
			}
			clients[i] = c
			fogclient.PlayBot(t.Context(), c, rtsBot(t, c, 3), 0)
		})
	}
	time.Sleep(2 * time.Second)
	got := newUpdates()
	s, err := fogclient.Spectate(t.Context(), dial(40), "final", fogclient.Config{OnStateUpdate: got.observe(t, tr)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Ticket(); ok || s.Player() != 0 {
		t.Errorf("spectator seated as player %d with a ticket", s.Player())
	}
	_, err = fogclient.Spectate(t.Context(), dial(41), "final", fogclient.Config{})
	wantRefused(t, err, join.RefuseRoomFull) // beyond max_spectators
	s.SubmitOrder(protocol.TimestampedOrder{Order: protocol.Move{Units: []protocol.EntityID{1}, Target: protocol.WorldPos{}}})
	s.Flush()
	fogclient.Watch(t.Context(), s)
	wg.Wait()
	end, consistent, ok := s.End()
	d := s.FogDiagnostics()
	got.mu.Lock()
	defer got.mu.Unlock()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	t.Logf("spectator: %d entities sent and checked, %d outside; view %d entities of %d; %d rejections; consistent %v",
		got.checked, got.outside, end.Entities, tr.total, d.Counters.Rejections, consistent)
	if !ok || !consistent {
		t.Errorf("spectator: match end %v, consistent %v", ok, consistent)
	}
	if got.checked == 0 || got.outside != 0 {
		t.Errorf("%d of %d entities sent outside the spectator's set", got.outside, got.checked)
	}
	if fullMap && int(end.Entities) != tr.total {
		t.Errorf("full-map spectator sees %d entities of %d", end.Entities, tr.total)
	}
	if d.Counters.Rejections == 0 {
		t.Error("the spectator's order was not rejected")
	}
	s.Close()
	for _, c := range clients {
		if c != nil {
			if _, consistent, ok := c.End(); !ok || !consistent {
				t.Errorf("player %d: match end %v, consistent %v", c.Player(), ok, consistent)
			}
			c.Close()
		}
	}
}

// TestRoomWaitsForRejoin: when every player's connection drops, the room
// plays on for RejoinTimeout. A player back within it (10 s later) ends
// the match consistent; once a room has been empty for RejoinTimeout it
// ends, and a later rejoin is refused as not playing.
func TestRoomWaitsForRejoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fog := fogserver.Config{NewGame: rtsGame, UnitsPerPlayer: 10, MatchTicks: 900, RejoinTimeout: 20 * time.Second, Seed: func() uint64 { return 3 }}
		dial := startServer(t, fog, netsim.Link{Latency: 10 * time.Millisecond})
		joinRoom := func(room string) (*transport.Conn, *fogclient.Client) {
			conn := dial(1)
			c, err := fogclient.Join(t.Context(), conn, room, 1, fogclient.Config{})
			if err != nil {
				t.Fatal(err)
			}
			return conn, c
		}
		conn, c := joinRoom("back")
		time.Sleep(3 * time.Second)
		conn.Close() // every player is gone
		tk, _ := c.Ticket()
		c.Close()
		time.Sleep(10 * time.Second)
		back, err := fogclient.Rejoin(t.Context(), dial(2), tk, fogclient.Config{})
		if err != nil {
			t.Fatalf("rejoin within RejoinTimeout: %v", err)
		}
		fogclient.PlayBot(t.Context(), back, rtsBot(t, back, 1), 0)
		if _, consistent, ok := back.End(); !ok || !consistent {
			t.Errorf("after the rejoin: match end %v, consistent %v", ok, consistent)
		}
		back.Close()

		conn, c = joinRoom("gone")
		time.Sleep(time.Second)
		conn.Close()
		tk, _ = c.Ticket()
		c.Close()
		time.Sleep(fog.RejoinTimeout + time.Second)
		_, err = fogclient.Rejoin(t.Context(), dial(3), tk, fogclient.Config{})
		wantRefused(t, err, join.RefuseNotPlaying)
	})
}
