//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"syscall/js"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

// Sizes in world units.
const (
	playerRadius     = 0.4
	projectileRadius = 0.15
)

// canvas draws the arena seen from above, world y growing downwards.
type canvas struct {
	el, ctx js.Value
	scale   float64 // pixels per world unit
}

func newCanvas(el js.Value, arena float64) *canvas {
	return &canvas{el: el, ctx: el.Call("getContext", "2d"), scale: el.Get("width").Float() / arena}
}

func (c *canvas) circle(x, y, r float64, fill, stroke string) {
	c.ctx.Call("beginPath")
	c.ctx.Call("arc", x*c.scale, y*c.scale, r*c.scale, 0, 2*math.Pi)
	if fill != "" {
		c.ctx.Set("fillStyle", fill)
		c.ctx.Call("fill")
	}
	if stroke != "" {
		c.ctx.Set("strokeStyle", stroke)
		c.ctx.Call("stroke")
	}
}

// hue is another player's colour: blue to red, never the local player's
// green.
func hue(p predict.PlayerID) string { return fmt.Sprintf("hsl(%d,70%%,60%%)", (180+int(p)*47%220)%360) }

// draw paints one frame: colliders, the view, then (with ghosts) the
// anchor's entities as outlines; it returns the players drawn.
func (c *canvas) draw(g *actiongame.Game, self predict.PlayerID, views, ghosts []predict.EntityView) int {
	w, h := c.el.Get("width").Float(), c.el.Get("height").Float()
	c.ctx.Set("fillStyle", "#1b1d22")
	c.ctx.Call("fillRect", 0, 0, w, h)
	c.ctx.Set("fillStyle", "#3a3f4b")
	for _, b := range g.W.Config().Colliders {
		x0, y0 := b.MinX.Float()*c.scale, b.MinY.Float()*c.scale
		c.ctx.Call("fillRect", x0, y0, b.MaxX.Float()*c.scale-x0, b.MaxY.Float()*c.scale-y0)
	}
	isPlayer := func(v *predict.EntityView) bool {
		id, ok := g.PlayerEntity(v.Owner)
		return ok && id == v.ID
	}
	players := 0
	for i := range views {
		v := &views[i]
		if !isPlayer(v) {
			c.circle(v.Pos[0], v.Pos[1], projectileRadius, "#fd4", "")
			continue
		}
		players++
		fill := hue(v.Owner)
		if v.Owner == self {
			fill = "#5f5"
		}
		c.circle(v.Pos[0], v.Pos[1], playerRadius, fill, "")
		if e, ok := g.W.Entity(action.EntityID(v.ID)); ok && e.Flags&action.FlagDead != 0 {
			c.circle(v.Pos[0], v.Pos[1], playerRadius, "", "#f44")
		}
	}
	// The ghosts go on top, as outlines: where the server last had them.
	for i := range ghosts {
		v := &ghosts[i]
		r := projectileRadius
		if isPlayer(v) {
			r = playerRadius
		}
		c.circle(v.Pos[0], v.Pos[1], r, "", "#fff")
	}
	return players
}
