//go:build js && wasm

package main

import (
	"math"
	"strings"
	"sync"
	"syscall/js"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
)

// controls is what the keyboard and mouse hold, written by the browser's
// event callbacks and read by the game loop.
type controls struct {
	mu     sync.Mutex
	keys   map[string]bool
	aimX   float64 // the mouse, in world units
	aimY   float64
	aimed  bool
	casts  int // clicks not yet turned into a cast
	scaleF func() float64
}

func (k *controls) key(e js.Value, down bool) {
	name := strings.ToLower(e.Get("key").String())
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys[name] = down
	switch name {
	case " ", "arrowup", "arrowdown", "arrowleft", "arrowright":
		e.Call("preventDefault")
	}
}

func (k *controls) mouse(e js.Value, click bool) {
	s := k.scaleF()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.aimX, k.aimY, k.aimed = e.Get("offsetX").Float()/s, e.Get("offsetY").Float()/s, true
	if click {
		k.casts++
	}
}

// listen attaches the callbacks: keys on the window, the mouse on canvas.
func (k *controls) listen(canvas js.Value) []js.Func {
	win := js.Global()
	on := func(target js.Value, event string, f func(e js.Value)) js.Func {
		fn := js.FuncOf(func(_ js.Value, args []js.Value) any { f(args[0]); return nil })
		target.Call("addEventListener", event, fn)
		return fn
	}
	return []js.Func{
		on(win, "keydown", func(e js.Value) { k.key(e, true) }),
		on(win, "keyup", func(e js.Value) { k.key(e, false) }),
		on(canvas, "mousemove", func(e js.Value) { k.mouse(e, false) }),
		on(canvas, "mousedown", func(e js.Value) { k.mouse(e, true) }),
	}
}

// input is the intent of this tick for a player at (x, y).
func (k *controls) input(x, y float64) predict.Input {
	k.mu.Lock()
	defer k.mu.Unlock()
	axis := func(neg, pos []string) int8 {
		var v int8
		for _, n := range neg {
			if k.keys[n] {
				v = -127
			}
		}
		for _, p := range pos {
			if k.keys[p] {
				v += 127
			}
		}
		return v
	}
	in := predict.Input{
		MoveX:  axis([]string{"a", "arrowleft"}, []string{"d", "arrowright"}),
		MoveY:  axis([]string{"w", "arrowup"}, []string{"s", "arrowdown"}),
		Jump:   k.keys[" "],
		Sprint: k.keys["shift"],
	}
	if k.aimed {
		a := math.Atan2(k.aimY-y, k.aimX-x)
		in.Yaw = uint16(int64(math.Round(a/(2*math.Pi)*65536)) & 0xffff)
	}
	if k.casts > 0 {
		k.casts--
		in.Actions = []predict.Action{{ID: actiongame.ActionCast}}
	}
	return in
}
