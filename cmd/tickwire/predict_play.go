package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/sim/action"
)

// errParity makes bot and demo --mode predict exit non-zero after printing
// a summary in which parity does not hold.
var errParity = errors.New("prediction parity does not hold")

// playPredict plays n prediction bots, each over the network layer open
// returns for it, for ticks predicted ticks, and summarises them. tickRate
// is the room's (it sets the game's rules).
func playPredict(ctx context.Context, n int, ticks uint64, tickRate int, lone bool, open func(ctx context.Context, i int) (predict.Network, error)) predictReport {
	rep := predictReport{NetworkModel: "prediction", Players: make([]predictPlayer, n), ParityOK: true}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range n {
		wg.Go(func() {
			p, ok := playOne(ctx, i, ticks, tickRate, lone, open)
			mu.Lock()
			rep.Players[i] = p
			rep.ParityOK = rep.ParityOK && ok
			mu.Unlock()
		})
	}
	wg.Wait()
	return rep
}

func playOne(ctx context.Context, i int, ticks uint64, tickRate int, lone bool, open func(ctx context.Context, i int) (predict.Network, error)) (predictPlayer, bool) {
	net, err := open(ctx, i)
	if err != nil {
		return predictPlayer{ID: i + 1, Error: err.Error()}, false
	}
	defer net.Close()
	g := actiongame.New(action.Config{TickRate: tickRate}, 0)
	c := predict.NewClient(predict.ClientConfig{}, g)
	s := &predict.Session{Client: c, Net: net}
	bot := action.NewBot(uint64(i)*7919 + 1)
	intent := func(uint64) predict.Input {
		return actiongame.Intent(bot.Input(g.W, action.PlayerID(c.Player())))
	}
	var start time.Time
	var first uint64
	done := func() bool {
		if !c.Predicting() {
			return false
		}
		if first == 0 {
			first, start = c.PredictedTick(), time.Now()
		}
		return c.PredictedTick()-first >= ticks
	}
	err = netlayer.Run(ctx, s, intent, done)
	d := time.Since(start)
	t := c.Telemetry()
	up, down := t.BytesUp, t.BytesDown
	if r, ok := net.(*netlayer.Remote); ok {
		st := r.Conn().Stats()
		up, down = st.BytesSent, st.BytesReceived
	}
	p := summarise(int(c.Player()), t, d, up, down)
	if err != nil {
		p.Error = err.Error()
		return p, false
	}
	return p, parityHolds(t, lone)
}
