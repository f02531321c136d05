// Command paint is "paint the map" over majority-hash state sync: a
// tickwire server in this process hosts one room of 100 players, bots
// that join it over UDP. Every client simulates the whole map; the
// server compares their state hashes every frame.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/transport"
)

func main() {
	players := flag.Int("players", 100, "bots in the room (1..255)")
	frames := flag.Uint("frames", 60, "frames to play (20 a second)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := run(ctx, *players, uint32(*frames))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s)
}

// summary is what the match ended with.
type summary struct {
	players int
	frames  uint32
	hashes  int    // distinct state hashes at the last frame (1: all agree)
	painted int    // cells painted, of side²
	best    uint32 // the player with the most cells
	most    int
}

func (s summary) String() string {
	return fmt.Sprintf("paint: %d players, %d frames, %d distinct state hash(es) at the end, %d of %d cells painted, player %d leads with %d",
		s.players, s.frames, s.hashes, s.painted, side*side, s.best, s.most)
}

// result is one bot's end: the state hash of the last frame, and the
// map as the bot saw it when it had that hash.
type result struct {
	id            uint32
	hash          uint32
	painted, mine int
	err           error
}

// run starts a server on loopback UDP and plays players bots in one room.
func run(ctx context.Context, players int, frames uint32) (summary, error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return summary{}, err
	}
	l, err := transport.Listen(ctx, pc, lanes.TransportConfig())
	if err != nil {
		return summary{}, err
	}
	defer l.Close()
	srv := server.New(server.Config{TickRate: 20, DefaultModel: room.StateSync, MaxWaitingPerAddr: -1,
		Models: []room.Model{host.Model(host.Config{})}})
	defer srv.Close()
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	go srv.Serve(serveCtx, l)

	// Every bot plays on until all have reached the last frame: a bot
	// that left early would take its vote from the others still behind.
	play, quit := context.WithCancel(ctx)
	defer quit()
	out := make([]result, players)
	var wg sync.WaitGroup
	var behind atomic.Int32 // bots yet to reach the last frame
	behind.Store(int32(players))
	reached := func() {
		if behind.Add(-1) == 0 {
			quit()
		}
	}
	for i := range players {
		wg.Go(func() {
			out[i] = playBot(play, l.Addr(), players, frames, reached)
			if out[i].err != nil {
				quit() // the room cannot finish without this bot
			}
		})
	}
	wg.Wait()
	s := summary{players: players, frames: frames}
	hashes := map[uint32]bool{}
	for _, r := range out {
		if r.err != nil {
			return s, fmt.Errorf("player %d: %w", r.id, r.err)
		}
		hashes[r.hash] = true
	}
	s.hashes = len(hashes)
	for _, r := range out {
		s.painted = max(s.painted, r.painted)
		if r.mine > s.most {
			s.best, s.most = r.id, r.mine
		}
	}
	if s.hashes != 1 {
		return s, fmt.Errorf("clients disagree: %v", s)
	}
	return s, nil
}

// playBot joins the room and paints: it walks straight, turning when
// the frame number says so. Once it has the state hash of frame frames it
// calls reached, and plays on until ctx ends.
func playBot(ctx context.Context, addr net.Addr, players int, frames uint32, reached func()) result {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return result{err: err}
	}
	conn, err := transport.Dial(ctx, pc, addr, lanes.TransportConfig())
	if err != nil {
		return result{err: err}
	}
	defer conn.Close()
	id, err := join(ctx, conn, "paint", players)
	if err != nil {
		return result{err: err}
	}
	g := NewGame()
	core := statesync.NewClient(statesync.ClientConfig{}, g)
	l := &link{conn: conn}
	last := uint32(0)
	var res *result
	for {
		m, err := l.receive(ctx)
		if err != nil {
			if res != nil && ctx.Err() != nil {
				return *res // every bot reached the last frame
			}
			return result{id: id, err: err}
		}
		_ = core.Step(m) // a message the core refuses changes nothing
		if f := core.Frame(); core.Running() && f != last {
			last = f
			if _, in := g.painters[id]; !in {
				core.Input([]byte{inputJoin}) // again until the game has it: a late input is dropped
			} else {
				turn := (f/10 + id) % 4
				dx, dy := [4]int8{1, 0, -1, 0}[turn], [4]int8{0, 1, 0, -1}[turn]
				core.Input([]byte{inputMove, byte(dx), byte(dy)})
			}
		}
		if err := l.flush(core); err != nil {
			return result{id: id, err: err}
		}
		if h, ok := core.HashAt(frames); ok && res == nil {
			all, mine := g.Painted(id)
			res = &result{id: id, hash: h, painted: all, mine: mine}
			reached()
		}
	}
}
