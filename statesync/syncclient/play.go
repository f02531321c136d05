package syncclient

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tickwire/tickwire/internal/botpool"
	"github.com/tickwire/tickwire/server/join"
)

// Run is a match of state-sync bots: Players bots join Room, a room of
// RoomSize players, and play until frame Frames, each doing what its
// Plans entry says (Plans may be nil: nothing).
type Run struct {
	Players  int
	RoomSize int
	Room     string
	Frames   uint32
	Plans    []Plan
	Dial     botpool.Dial
}

// Play joins the bots and plays them to the end concurrently, returning
// each bot's result in order. A bot that churns closes its connection,
// stays away a second and comes back as a new client over a new
// connection (the room's late-join path). Hostile bots play until the
// honest ones are done (a hostile bot the room removed gets no more
// frames).
func Play(ctx context.Context, r Run) []Result {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(r.Frames)*50*time.Millisecond+2*time.Minute)
	defer cancel()
	plans := make([]Plan, r.Players)
	copy(plans, r.Plans)
	hostileCtx, honestDone := context.WithCancel(ctx)
	defer honestDone()
	var honest sync.WaitGroup
	for _, pl := range plans {
		if !pl.Hostile {
			honest.Add(1)
		}
	}
	go func() { honest.Wait(); honestDone() }()
	return botpool.Play(r.Players, func(i int) Result {
		ctx := ctx
		p := &player{ticks: r.Frames, plan: plans[i]}
		if plans[i].Hostile {
			ctx = hostileCtx
		} else {
			// An honest bot is done before it waits for the match's
			// result, which needs the hostile ones gone.
			p.finished = sync.OnceFunc(honest.Done)
			defer p.finished()
		}
		for {
			if err := p.dialAndJoin(ctx, i, r.Room, r.RoomSize, r.Dial); err != nil {
				p.res.Err = err
				return p.res
			}
			if !p.play(ctx) {
				return p.res
			}
			select {
			case <-time.After(away):
				p.helloAt = time.Now()
			case <-ctx.Done():
				p.res.Err = ctx.Err()
				return p.res
			}
		}
	})
}

// dialAndJoin connects bot i and joins the room; while a late joiner
// finds every seat taken (the server has not yet seen the end of the
// connection it left), it tries again every 100 ms, for up to 10 s.
func (p *player) dialAndJoin(ctx context.Context, i int, roomName string, roomSize int, dial botpool.Dial) error {
	for try := 0; ; try++ {
		conn, err := dial(ctx, i)
		if err != nil {
			return err
		}
		err = p.join(ctx, conn, roomName, roomSize)
		if err == nil {
			return nil
		}
		conn.Close()
		if !errors.Is(err, join.ErrRoomFull) || p.res.Start.IsZero() || try == 100 {
			return err
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Plans draws a fault plan for players bots of a match of frames
// frames: corrupt bots corrupted once each, spread over the match, and
// churn of the room leaving and coming back every 100 frames; no fault
// in the last 300 frames, so that every one is repaired before the end.
func Plans(players int, frames uint32, corrupt int, churn float64, seed uint64) []Plan {
	rng := rand.New(rand.NewPCG(seed, 0x55))
	plans := make([]Plan, players)
	order := rng.Perm(players)
	victims := order[:corrupt]
	for k, i := range victims {
		plans[i].CorruptAt = 200 + uint32(k+1)*(frames-500)/uint32(corrupt+1)
	}
	others := order[corrupt:]
	per := int(churn*float64(players) + 0.5)
	for at := uint32(100); at+300 < frames && len(others) > 0; at += 100 {
		for range per {
			i := others[rng.IntN(len(others))]
			plans[i].ChurnAt = append(plans[i].ChurnAt, at+uint32(rng.IntN(50)))
		}
	}
	return plans
}
