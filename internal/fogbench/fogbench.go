package fogbench

import (
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// Game is one fog-authoritative room with its clients in one goroutine.
type Game struct {
	Room    *fogauth.Room
	RTS     *rtsgame.Game     // the game the room hosts
	Clients []*fogauth.Client // index i is client ID i+1
	bots    []*rtsgame.Bot
	orders  []protocol.TimestampedOrder
	out     []sent

	// Bytes[i] is the StateUpdate bytes client i received so far, and
	// MaxTickBytes[i] the most in one tick.
	Bytes, MaxTickBytes []int
	tickBytes           []int
	// Sim, Orders and Cost are the time of the last Tick spent in the
	// simulation, in decoding the clients' orders and in the rest of the
	// server's work.
	Sim, Orders, Cost time.Duration
}

// Options shape a Game.
type Options struct {
	Params scenario.Params
	Room   fogauth.Config
	// Spectators join beside the players.
	Spectators int
	// Idle players give no orders (a quiet phase).
	Idle bool
}

// New starts a game with one client per player (and the spectators).
func New(o Options) (*Game, error) {
	p := o.Params.WithDefaults()
	md, rules, err := scenario.Generate(p)
	if err != nil {
		return nil, err
	}
	game, err := rtsgame.New(md, rules, p.Seed)
	if err != nil {
		return nil, err
	}
	r, err := fogauth.New(o.Room, game, 0)
	if err != nil {
		return nil, err
	}
	g := &Game{Room: r, RTS: game}
	for i := range p.Players + o.Spectators {
		player := protocol.PlayerID(i + 1)
		if i >= p.Players {
			player = 0
		}
		if err := r.AddClient(fogauth.ClientID(i+1), player); err != nil {
			return nil, err
		}
		g.Clients = append(g.Clients, fogauth.NewClient(player))
		var b *rtsgame.Bot
		if player != 0 && !o.Idle {
			b = &rtsgame.Bot{Bot: bot.New(player, p.Seed), Map: game.Sim().Terrain()}
		}
		g.bots = append(g.bots, b)
	}
	g.Bytes, g.MaxTickBytes, g.tickBytes = make([]int, len(g.Clients)), make([]int, len(g.Clients)), make([]int, len(g.Clients))
	return g, nil
}

// Tick runs one tick and delivers everything; Sim, Orders and Cost hold
// its times.
func (g *Game) Tick() error {
	if err := g.Submit(); err != nil {
		return err
	}
	o0 := time.Now()
	if err := g.StepOrders(); err != nil {
		return err
	}
	t0 := time.Now()
	g.Orders = t0.Sub(o0)
	if err := g.StepAcks(); err != nil {
		return err
	}
	t1 := time.Now()
	err := g.Room.Simulate()
	t2 := time.Now()
	g.Room.Publish()
	t3 := time.Now()
	g.Sim, g.Cost = t2.Sub(t1), t1.Sub(t0)+t3.Sub(t2)
	if err != nil {
		return err
	}
	return g.Deliver()
}

// Submit is the clients' work before a tick: each bot decides from its
// client's partial world, and each client flushes its orders and
// acknowledgement.
func (g *Game) Submit() error {
	g.out = g.out[:0]
	for i, c := range g.Clients {
		if b := g.bots[i]; b != nil {
			g.orders = b.Orders(c.World(), c.World().Tick(), g.orders[:0])
			for _, o := range g.orders {
				c.SubmitOrder(o)
			}
		}
		orders, ack, err := c.Flush()
		if err != nil {
			return err
		}
		for _, m := range orders {
			g.out = append(g.out, sent{fogauth.ClientID(i + 1), m})
		}
		if ack != nil {
			g.out = append(g.out, sent{fogauth.ClientID(i + 1), ack})
		}
	}
	return nil
}

type sent struct {
	from fogauth.ClientID
	data []byte
}

// StepOrders hands the room the clients' Orders messages, so decoding
// them can be timed apart; StepAcks then hands it the rest. Orders are
// only queued and the rest touches other state, so handling all orders
// before all acknowledgements keeps the room's behaviour.
func (g *Game) StepOrders() error { return g.step(true) }

// StepAcks hands the room the clients' messages other than Orders:
// acknowledgements and Done.
func (g *Game) StepAcks() error { return g.step(false) }

func (g *Game) step(orders bool) error {
	for _, m := range g.out {
		if (len(m.data) > 0 && m.data[0] == fogauth.TypeOrders) != orders {
			continue
		}
		if err := g.Room.Step(m.from, m.data); err != nil {
			return err
		}
	}
	return nil
}

// Deliver hands the room's messages to the clients and counts the state
// bytes each received.
func (g *Game) Deliver() error {
	clear(g.tickBytes)
	for _, e := range g.Room.Ready().Messages {
		i := int(e.To) - 1
		if !e.Reliable {
			g.tickBytes[i] += len(e.Data)
		}
		if err := g.Clients[i].Receive(e.Data); err != nil {
			return err
		}
	}
	g.Room.Advance()
	for i, n := range g.tickBytes {
		g.Bytes[i] += n
		g.MaxTickBytes[i] = max(g.MaxTickBytes[i], n)
	}
	return nil
}

// RestartEvery is how many ticks a measurement plays the battle before
// starting again from the warm-up: by then a tenth of the armies is gone.
const RestartEvery = 100

// Battle is the benchmark workload: the simulation benchmarks' battle (8
// players, 280 units each on a 64-cell map), warmed up until the armies
// are engaged.
func Battle(cfg fogauth.Config) (*Game, error) {
	g, err := New(Options{Params: scenario.BenchmarkParams(), Room: cfg})
	if err != nil {
		return nil, err
	}
	for range scenario.BattleWarmup {
		if err := g.Tick(); err != nil {
			return nil, err
		}
	}
	return g, nil
}
