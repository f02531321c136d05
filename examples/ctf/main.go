// Command ctf is capture the flag over the fog-authoritative model: a
// tickwire server in this process runs the game, and two bots play it
// over UDP from what their clients receive, which is only what their
// runners see.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"sync"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

func main() {
	ticks := flag.Int("ticks", 300, "ticks the match lasts (30 a second)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := run(ctx, *ticks)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s)
}

// summary is what the match ended with.
type summary struct {
	ticks      int
	score      [3]int  // per team, from the server's game
	consistent [3]bool // per team: its world matched the server's truth of its view
	seen       [3]int  // per team: entities its client held at the end
}

func (s summary) String() string {
	return fmt.Sprintf("ctf: %d ticks, captures: team 1 %d, team 2 %d; each client's world matched the server's view of it: %v, %v (holding %d and %d of %d entities)",
		s.ticks, s.score[1], s.score[2], s.consistent[1], s.consistent[2], s.seen[1], s.seen[2], 2*runners+2)
}

// run hosts a match of ticks ticks on loopback UDP and plays it with two
// bots.
func run(ctx context.Context, ticks int) (summary, error) {
	s := summary{ticks: ticks}
	var mu sync.Mutex
	cfg := server.Config{TickRate: 30, DefaultModel: room.FogAuthoritative,
		Models: []room.Model{fogserver.Model(fogserver.Config{NewGame: NewGame, MatchTicks: ticks,
			OnTick: func(_ string, core *fogauth.Room) {
				g := core.Game().(*Game)
				mu.Lock()
				s.score[1], s.score[2] = g.Score(1), g.Score(2)
				mu.Unlock()
			}})}}
	tc, err := cfg.Transport()
	if err != nil {
		return s, err
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return s, err
	}
	l, err := transport.Listen(ctx, pc, tc)
	if err != nil {
		return s, err
	}
	defer l.Close()
	srv := server.New(cfg)
	defer srv.Close()
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	go srv.Serve(serveCtx, l)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			team, consistent, seen, err := play(ctx, l.Addr(), tc)
			if err != nil {
				cancel() // the room cannot start without this player
			}
			mu.Lock()
			defer mu.Unlock()
			errs[team] = err
			s.consistent[team], s.seen[team] = consistent, seen
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// play joins the match and lets a Bot play it to the end.
func play(ctx context.Context, addr net.Addr, tc transport.Config) (team protocol.PlayerID, consistent bool, seen int, err error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, false, 0, err
	}
	conn, err := transport.Dial(ctx, pc, addr, tc)
	if err != nil {
		return 0, false, 0, err
	}
	c, err := fogclient.Join(ctx, conn, "ctf", 2, fogclient.Config{})
	if err != nil {
		return 0, false, 0, err
	}
	defer c.Close()
	fogclient.PlayBot(ctx, c, Bot{Team: c.Player()}, 0) // until the match ends
	_, consistent, ended := c.End()
	if !ended {
		return c.Player(), false, 0, fmt.Errorf("team %d: no match end", c.Player())
	}
	c.WithWorld(func(w *fogauth.PartialWorld) { seen = w.Len() })
	return c.Player(), consistent, seen, nil
}
