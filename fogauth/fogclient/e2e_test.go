package fogclient_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/transport"
)

// startServer starts a relay server hosting fog-authoritative rooms with
// fog on an in-memory network, and returns how to dial it over link (each
// way) with a seeded impairment. The server closes when the test ends.
func startServer(t *testing.T, fog fogserver.Config, link netsim.Link) func(seed uint64) *transport.Conn {
	t.Helper()
	s := roomtest.StartConfig(t, server.Config{Models: []room.Model{fogserver.Model(fog)}, DefaultModel: room.FogAuthoritative})
	t.Cleanup(s.Close)
	return func(seed uint64) *transport.Conn {
		c, err := s.Dial(t.Context(), netsim.Config{Seed: seed, Out: link, In: link})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
}

// wantRefused checks that err is a join refused for reason.
func wantRefused(t *testing.T, err error, reason join.RefusalReason) *join.JoinError {
	t.Helper()
	var je *join.JoinError
	if !errors.As(err, &je) || je.Reason != reason || !errors.Is(err, reason.Err()) {
		t.Errorf("join: %v, want refused %v", err, reason)
		return nil
	}
	return je
}

// TestMatchOverServer plays a fog-authoritative match through the relay
// server: three bot clients over an in-memory network with 10% loss and
// jitter each way, in virtual time. Each client ends consistent (its
// partial world hashes as the server's truth of its view in the
// MatchEnd), and a fourth join beyond max_concurrent_games is refused as
// "server at capacity".
func TestMatchOverServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fog := fogserver.Config{NewGame: rtsGame, MaxConcurrentGames: 1, UnitsPerPlayer: 20, MatchTicks: 300, Seed: func() uint64 { return 5 }}
		link := netsim.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.10}
		dial := startServer(t, fog, link)
		const players = 3
		clients := make([]*fogclient.Client, players)
		var wg sync.WaitGroup
		for i := range players {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := fogclient.Join(t.Context(), dial(uint64(i+1)), "cup", players, fogclient.Config{})
				if err != nil {
					t.Error(err)
					return
				}
				clients[i] = c
				fogclient.PlayBot(t.Context(), c, rtsBot(t, c, 9), 0)
			}()
		}
		time.Sleep(2 * time.Second) // the room is full and playing
		_, err := fogclient.Join(t.Context(), dial(99), "other", 2, fogclient.Config{})
		if je := wantRefused(t, err, join.RefuseServerFull); je != nil && !strings.Contains(je.Detail, "server at capacity") {
			t.Errorf("join beyond max_concurrent_games: %v", err)
		}
		wg.Wait()
		for i, c := range clients {
			if c == nil {
				continue
			}
			end, consistent, ok := c.End()
			d := c.FogDiagnostics()
			t.Logf("player %d: %d entities, %d updates, %d enters %d updates %d leaves, %d rejections, max stale %d, view %d entities, tick p99 %dus cost p99 %dus",
				c.Player(), d.EntitiesTracked, d.UpdatesReceived, d.Counters.World.Enters, d.Counters.World.Updates, d.Counters.World.Leaves,
				d.Counters.Rejections, end.MaxStaleTicks, end.Entities, end.TickP99Us, end.CostP99Us)
			if !ok || !consistent {
				t.Errorf("client %d: match end received %v, consistent %v", i, ok, consistent)
			}
			if c.NetworkModel() != room.FogAuthoritative {
				t.Errorf("network model %q", c.NetworkModel())
			}
			var _ fogauth.MatchEnd = end
			c.Close()
		}
	})
}

// rtsGame is the reference RTS as the rooms' game.
func rtsGame(players, units int, mapSeed, simSeed uint64) (fogauth.Game, int, error) {
	return rtsgame.Start(players, units, mapSeed, simSeed)
}

// rtsBot is the reference RTS's bot for the player of c, on its match's
// map.
func rtsBot(t testing.TB, c *fogclient.Client, seed uint64) rtsgame.Bot {
	m := c.Match()
	terrain, err := rtsgame.Terrain(int(m.Players), int(m.UnitsPerPlayer), int(m.MapSize), m.MapSeed)
	if err != nil {
		t.Fatal(err)
	}
	return rtsgame.Bot{Bot: bot.New(c.Player(), seed), Map: terrain}
}
