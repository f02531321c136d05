package fogclient_test

import (
	"context"
	"fmt"
	"net"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/transport"
)

// A fog client joins a fog-authoritative room and holds only what its
// player sees: the server simulates the game its NewGame starts, and
// sends each client the entities in its fog, as deltas. Here a server in
// this process hosts a one-player match of the reference RTS (30 ticks,
// loopback UDP), and the RTS's bot plays it from the client's partial
// world. At the MatchEnd the client checks its
// world against the server's truth of its view.
func ExampleJoin() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := server.Config{TickRate: 30, DefaultModel: room.FogAuthoritative,
		Models: []room.Model{fogserver.Model(fogserver.Config{UnitsPerPlayer: 10, MatchTicks: 30,
			NewGame: func(players, units int, mapSeed, simSeed uint64) (fogauth.Game, int, error) {
				return rtsgame.Start(players, units, mapSeed, simSeed) // the reference RTS
			}})}}
	tc, err := cfg.Transport()
	if err != nil {
		fmt.Println(err)
		return
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := transport.Listen(ctx, pc, tc)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	srv := server.New(cfg)
	defer srv.Close()
	go srv.Serve(ctx, l)

	cpc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	conn, err := transport.Dial(ctx, cpc, l.Addr(), tc)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := fogclient.Join(ctx, conn, "solo", 1, fogclient.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	m := c.Match() // the public map: the bot needs its terrain
	terrain, err := rtsgame.Terrain(int(m.Players), int(m.UnitsPerPlayer), int(m.MapSize), m.MapSeed)
	if err != nil {
		fmt.Println(err)
		return
	}
	fogclient.PlayBot(ctx, c, rtsgame.Bot{Bot: bot.New(c.Player(), 1), Map: terrain}, 0) // until the match ends
	_, consistent, ended := c.End()
	fmt.Println("player", c.Player(), "match ended:", ended, "world matches the server's view:", consistent)
	// Output: player 1 match ended: true world matches the server's view: true
}
