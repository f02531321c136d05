package predictbot

import (
	"context"
	"time"

	"github.com/tickwire/tickwire/internal/botpool"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/transport"
)

// Play plays n prediction bots, each over the network layer open
// returns for it, for ticks predicted ticks, and summarises them. Each
// bot's game takes the room's tick rate (and so its rules) from the
// server's Hello; arena is the side of its arena (0: the default), which
// the server's game must share.
func Play(ctx context.Context, n int, ticks uint64, arena int, lone bool, open func(ctx context.Context, i int) (predict.Network, error)) Report {
	type result struct {
		p  Player
		ok bool
	}
	results := botpool.Play(n, func(i int) result {
		p, ok := playOne(ctx, i, ticks, arena, lone, open)
		return result{p, ok}
	})
	rep := Report{NetworkModel: "prediction", Players: make([]Player, n), ParityOK: true}
	for i, res := range results {
		rep.Players[i] = res.p
		rep.ParityOK = rep.ParityOK && res.ok
	}
	return rep
}

// Remote opens bot i's network layer: a seat in room (of size
// players) over the connection dial makes.
func Remote(room string, size int, dial botpool.Dial) func(ctx context.Context, i int) (predict.Network, error) {
	return func(ctx context.Context, i int) (predict.Network, error) {
		return netlayer.Open(ctx, netlayer.Options{Room: room, RoomSize: size,
			Dial: func(ctx context.Context) (*transport.Conn, error) { return dial(ctx, i) }})
	}
}

func playOne(ctx context.Context, i int, ticks uint64, arena int, lone bool, open func(ctx context.Context, i int) (predict.Network, error)) (Player, bool) {
	net, err := open(ctx, i)
	if err != nil {
		return Player{ID: i + 1, Error: err.Error()}, false
	}
	defer net.Close()
	c := predict.NewClientFor(predict.ClientConfig{}, func(tickRate int) predict.Game { return Game(tickRate, arena, 0) })
	s := &predict.Session{Client: c, Net: net}
	bot := action.NewBot(uint64(i)*7919 + 1)
	intent := func(uint64) predict.Input {
		return actiongame.Intent(bot.Input(c.Game().(*actiongame.Game).W, action.PlayerID(c.Player())))
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
	d := metrics.Span(start, time.Now()) // 0 if it never predicted
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
	if r, ok := net.(*netlayer.Remote); ok {
		p.Certificate = botpool.Leave(ctx, r.Leave)
	}
	return p, parityHolds(t, lone)
}

// Game is the game of prediction rooms and of these bots: the reference
// action game at the room's tick rate on an arena of the given side (0:
// the game's default, 48 units), so server and clients share its rules.
func Game(tickRate, arena int, seed uint64) predict.Game {
	return actiongame.New(action.Config{TickRate: tickRate, ArenaSize: arena, MaxPlayers: 255}, seed)
}
