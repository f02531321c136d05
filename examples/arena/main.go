// Command arena is king of the hill over client prediction: a tickwire
// server in this process hosts the room, and bots join it over UDP. Each
// client predicts its own disc at once and corrects it from the server's
// snapshots.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/predict/predictserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

func main() {
	players := flag.Int("players", 3, "bots to seat")
	ticks := flag.Uint64("ticks", 90, "ticks each bot predicts")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	scores, err := run(ctx, *players, *ticks)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(summary(scores, *ticks))
}

// result is what one bot saw at the end.
type result struct {
	player    predict.PlayerID
	score     uint32 // the bot's own score, as its client predicted it
	corrected uint64 // ticks the server's snapshot corrected its prediction
	err       error
}

func summary(rs []result, ticks uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "arena: %d players, %d ticks predicted each;", len(rs), ticks)
	for _, r := range rs {
		fmt.Fprintf(&b, " player %d scored %d (%d corrections);", r.player, r.score, r.corrected)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// run starts a server on loopback UDP and plays players bots in one room.
func run(ctx context.Context, players int, ticks uint64) ([]result, error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l, err := transport.Listen(ctx, pc, lanes.TransportConfig())
	if err != nil {
		return nil, err
	}
	defer l.Close()
	srv := server.New(server.Config{TickRate: 30, DefaultModel: room.Prediction,
		Models: []room.Model{predictserver.Model(predictserver.Config{
			NewGame: func(string, int) predict.Game { return &Game{} },
		})}})
	defer srv.Close()
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	go srv.Serve(serveCtx, l)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]result, players)
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			out[i] = playBot(ctx, l.Addr(), players, ticks, i)
			if out[i].err != nil {
				cancel() // the room cannot fill without this bot
			}
		})
	}
	wg.Wait()
	for _, r := range out {
		if r.err != nil {
			return out, fmt.Errorf("player %d: %w", r.player, r.err)
		}
	}
	slices.SortFunc(out, func(a, b result) int { return int(a.player) - int(b.player) })
	return out, nil
}

// playBot joins the room and steers toward the hill, then around it.
func playBot(ctx context.Context, addr net.Addr, players int, ticks uint64, i int) result {
	net, err := netlayer.Open(ctx, netlayer.Options{Room: "hill", RoomSize: players,
		Dial: func(ctx context.Context) (*transport.Conn, error) {
			pc, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				return nil, err
			}
			return transport.Dial(ctx, pc, addr, lanes.TransportConfig())
		}})
	if err != nil {
		return result{err: err}
	}
	defer net.Close()
	c := predict.NewClient(predict.ClientConfig{}, &Game{})
	s := &predict.Session{Client: c, Net: net}
	intent := func(tick uint64) predict.Input {
		g := c.Game().(*Game)
		me, ok := g.View(predict.EntityID(c.Player()))
		if !ok {
			return predict.Input{}
		}
		// Head for the centre, wobbling so that the bots jostle.
		wobble := float64(int(tick/15+uint64(i))%3-1) * 40
		return predict.Input{MoveX: stick(arenaSide/2000 - me.Pos[0] + wobble/10), MoveY: stick(arenaSide/2000 - me.Pos[1])}
	}
	var first uint64
	done := func() bool {
		if !c.Predicting() {
			return false
		}
		if first == 0 {
			first = c.PredictedTick()
		}
		return c.PredictedTick()-first >= ticks
	}
	err = netlayer.Run(ctx, s, intent, done)
	t := c.Telemetry()
	return result{player: c.Player(), score: c.Game().(*Game).Score(c.Player()), corrected: t.Corrections, err: err}
}

// stick turns a distance in world units into a stick position.
func stick(d float64) int8 {
	return int8(max(min(d*40, 127), -127))
}
