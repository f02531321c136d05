//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/web/impair"
)

// game is the page's game loop: one goroutine owns the client; the
// browser's callbacks only signal it or set what it reads.
type game struct {
	c      *predict.Client
	s      *predict.Session
	net    *impair.Network
	remote *netlayer.Remote
	ctl    *controls
	canvas *canvas
	doc    js.Value

	start         time.Time
	frame         chan struct{}
	ghosts        atomic.Bool
	latency, loss atomic.Int32

	views, anchor []predict.EntityView
	x, y          float64 // the local player, as last drawn
	players       int
	deaths        int  // the local player's deaths seen (respawns teleport it)
	dead          bool // as last drawn
	frames        uint64
	frameTime     time.Duration
	meter         meter
}

func newGame(doc js.Value, c *predict.Client, net *impair.Network, remote *netlayer.Remote) *game {
	g := &game{c: c, s: &predict.Session{Client: c, Net: net}, net: net, remote: remote, doc: doc,
		start: time.Now(), frame: make(chan struct{}, 1)}
	g.ctl = &controls{keys: map[string]bool{}, scaleF: func() float64 { return g.canvas.scale }}
	return g
}

// intent is the local player's input of a tick.
func (g *game) intent(uint64) predict.Input { return g.ctl.input(g.x, g.y) }

func (g *game) now() time.Duration { return time.Since(g.start) }

// hooks registers the page's callbacks: animation frames, input, the
// ghosts toggle and the impairment slider.
func (g *game) hooks() {
	global := js.Global()
	var raf js.Func
	raf = js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case g.frame <- struct{}{}:
		default:
		}
		global.Call("requestAnimationFrame", raf)
		return nil
	})
	global.Call("requestAnimationFrame", raf)
	g.ctl.listen(g.canvas.el)
	global.Set("twSetGhosts", js.FuncOf(func(_ js.Value, a []js.Value) any {
		g.ghosts.Store(len(a) > 0 && a[0].Truthy())
		return nil
	}))
	global.Set("twSetImpair", js.FuncOf(func(_ js.Value, a []js.Value) any {
		if len(a) == 2 {
			ms, pct := a[0].Int(), a[1].Int()
			g.latency.Store(int32(ms))
			g.loss.Store(int32(pct))
			g.net.SetLink(netsim.Link{Latency: time.Duration(ms) * time.Millisecond, Loss: float64(pct) / 100})
		}
		return nil
	}))
}

// run plays until the connection fails or ctx ends: it steps the session
// when messages arrive and at least every 4 ms, draws at each animation
// frame and refreshes the figures twice a second.
func (g *game) run(ctx context.Context) {
	var arena float64
	status := g.doc.Call("getElementById", "tw-status")
	for g.c.Game() == nil || arena == 0 { // the hello sets the game
		if err := g.s.Step(g.now(), g.intent); err != nil {
			status.Set("textContent", "error: "+err.Error())
			return
		}
		if ag, ok := g.c.Game().(*actiongame.Game); ok {
			arena = float64(ag.W.Config().ArenaSize)
		}
		time.Sleep(5 * time.Millisecond)
	}
	g.canvas = newCanvas(g.doc.Call("getElementById", "tw-canvas"), arena)
	g.hooks()
	step := time.NewTicker(4 * time.Millisecond)
	defer step.Stop()
	figures := time.NewTicker(500 * time.Millisecond)
	defer figures.Stop()
	statsEl, overlayEl := g.doc.Call("getElementById", "tw-stats"), g.doc.Call("getElementById", "tw-overlay")
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-g.remote.Arrived():
			err = g.s.Step(g.now(), g.intent)
		case <-step.C:
			err = g.s.Step(g.now(), g.intent)
		case <-g.frame:
			t0 := time.Now()
			err = g.s.Step(g.now(), g.intent)
			g.draw()
			g.frames++
			g.frameTime += time.Since(t0)
		case <-figures.C:
			s := g.figures()
			b, _ := json.Marshal(&s)
			statsEl.Set("textContent", string(b))
			overlayEl.Set("textContent", s.overlay())
		}
		if err != nil {
			status.Set("textContent", "error: "+err.Error())
			return
		}
	}
}

func (g *game) draw() {
	ag := g.c.Game().(*actiongame.Game)
	g.views = g.c.View(g.now(), g.views[:0])
	g.anchor = g.anchor[:0]
	if g.ghosts.Load() {
		g.anchor = g.c.AnchorView(g.anchor)
	}
	self := g.c.Player()
	if e, ok := ag.W.Player(action.PlayerID(self)); ok {
		dead := e.Flags&action.FlagDead != 0
		if dead && !g.dead {
			g.deaths++
		}
		g.dead = dead
	}
	if id, ok := ag.PlayerEntity(self); ok {
		for _, v := range g.views {
			if v.ID == id {
				g.x, g.y = v.Pos[0], v.Pos[1]
			}
		}
	}
	g.players = g.canvas.draw(ag, self, g.views, g.anchor)
}

func (g *game) figures() stats {
	s := stats{PlayersSeen: g.players, X: g.x, Y: g.y, Player: int(g.c.Player()), Deaths: g.deaths,
		LatencyMs: int(g.latency.Load()), LossPct: int(g.loss.Load()), Dropped: g.net.Dropped()}
	g.meter.sample(&s, time.Now(), g.c.Telemetry(), g.remote.Conn().Stats(), g.frames, g.frameTime)
	return s
}
