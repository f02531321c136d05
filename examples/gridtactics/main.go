// Command gridtactics is a grid tactics game over relay lockstep: a host
// runs the relay in its own process (lockstep/hostrelay) and plays
// against a remote player who joins it over UDP; both players are bots.
// Every client simulates every tick, so both end in the same state.
//
// With -server it is instead one player, in its own process, of a room
// on a stock "tickwire serve" (encrypted: -server-key is the server's
// public key, which serve --json prints): run it twice.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/hostrelay"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

func main() {
	ticks := flag.Uint64("ticks", 120, "ticks to play")
	server := flag.String("server", "", "join this tickwire serve (host:port) as one player, instead of hosting a match in-process")
	serverKey := flag.String("server-key", "", "with -server: the server's public key, hex (serve --json's public_key; empty: a plaintext server)")
	room := flag.String("room", "grid", "with -server: the room to join")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if *server != "" {
		line, err := joinServer(ctx, *server, *serverKey, *room, *ticks)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(line)
		return
	}
	sum, err := run(ctx, *ticks)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum)
}

// summary is what one match ended with.
type summary struct {
	ticks        uint64
	hosts, joins uint64 // the two players' state hashes
	alive        [2]int // units left, players 1 and 2
}

func (s summary) String() string {
	return fmt.Sprintf("gridtactics: %d ticks, state hashes %#x and %#x (in sync: %v), units left: player 1 %d, player 2 %d",
		s.ticks, s.hosts, s.joins, s.hosts == s.joins, s.alive[0], s.alive[1])
}

// run hosts a two-player match on loopback UDP and plays it to ticks.
func run(ctx context.Context, ticks uint64) (summary, error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return summary{}, err
	}
	l, err := transport.Listen(ctx, pc, lanes.TransportConfig())
	if err != nil {
		return summary{}, err
	}
	defer l.Close()
	host, err := hostrelay.Start(ctx, l, 2, hostrelay.Config{})
	if err != nil {
		return summary{}, err
	}
	defer host.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	remote := make(chan result, 1)
	go func() {
		r := joinAndPlay(ctx, l.Addr(), ticks)
		if r.err != nil {
			cancel() // the host would wait for it forever
		}
		remote <- r
	}()
	h := play(ctx, host.RelayClient, ticks)
	r := <-remote
	if h.err != nil {
		return summary{}, fmt.Errorf("host: %w", h.err)
	}
	if r.err != nil {
		return summary{}, fmt.Errorf("remote player: %w", r.err)
	}
	s := summary{ticks: ticks, hosts: h.game.StateHash(), joins: r.game.StateHash(),
		alive: [2]int{h.game.Alive(1), h.game.Alive(2)}}
	if s.hosts != s.joins {
		return s, fmt.Errorf("desync: %v", s)
	}
	return s, nil
}

// joinAndPlay is the remote player: dial the host, join its room, play.
func joinAndPlay(ctx context.Context, addr net.Addr, ticks uint64) result {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return result{err: err}
	}
	conn, err := transport.Dial(ctx, pc, addr, lanes.TransportConfig())
	if err != nil {
		return result{err: err}
	}
	rc, err := lockstep.JoinRelay(ctx, conn, hostrelay.DefaultRoom, 2, lockstep.RelayClientConfig{})
	if err != nil {
		return result{err: err}
	}
	defer rc.Close()
	return play(ctx, rc, ticks)
}

type result struct {
	game *Game
	err  error
}

// play runs one client's game loop: the relay confirms each tick's
// orders, the game applies them, the loop reports the state hash.
func play(ctx context.Context, rc *lockstep.RelayClient, ticks uint64) result {
	if _, err := rc.AwaitSeed(ctx); err != nil {
		return result{err: err}
	}
	g := NewGame(rc.RoomSize())
	loop := lockstep.GameLoop{Sim: g, Net: rc, Input: &Bot{Player: rc.PlayerID(), Game: g}}
	for loop.Applied() < ticks {
		n, err := loop.Step()
		if err != nil {
			return result{g, err}
		}
		if n > 0 {
			continue
		}
		if st := rc.Status(); st >= lockstep.StatusEnded {
			return result{g, fmt.Errorf("%v after %d ticks: %v", st, loop.Applied(), rc.Err())}
		}
		if err := rc.Wait(ctx); err != nil {
			return result{g, err}
		}
	}
	return result{game: g}
}
