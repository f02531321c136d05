package main

import (
	"errors"
	"iter"

	"github.com/tickwire/tickwire/statesync/msg"
)

// The map is side × side cells. Entity ids: 1..side² are the painted
// cells (a cell entity exists once someone painted it), painterBase+p is
// player p's painter.
const (
	side        = 64
	painterBase = 1 << 16
)

// A player's input for a frame is one of these, as bytes (state sync
// carries inputs opaque):
//
//	join    0x01
//	move    0x02 dx dy   (int8, clamped to one cell)
//	leave   (empty: what the server sends for a client that left)
const (
	inputJoin byte = 1
	inputMove byte = 2
)

// errEncoding reports an entity encoding the game cannot hold.
var errEncoding = errors.New("paint: invalid entity encoding")

// Game is "paint the map": every player moves a painter over a square
// map and paints the cell it stands on with its colour (its id). It
// implements statesync.Engine: every client simulates every frame, and
// the server compares the clients' state hashes frame by frame.
type Game struct {
	cells    [side * side]uint8 // colour per cell, 0 unpainted
	painters map[uint32][2]uint8
	buf      [2]byte
}

// NewGame returns an unpainted map.
func NewGame() *Game { return &Game{painters: map[uint32][2]uint8{}} }

// Step applies one frame's inputs, in ascending client order.
func (g *Game) Step(_ uint32, inputs []msg.ClientInput) {
	for _, in := range inputs {
		p := in.Client
		if p == 0 || p > 255 {
			continue
		}
		switch {
		case len(in.Data) == 0:
			delete(g.painters, p)
		case in.Data[0] == inputJoin:
			if _, ok := g.painters[p]; !ok {
				g.painters[p] = [2]uint8{uint8(p * 37 % side), uint8(p * 11 % side)}
			}
		case in.Data[0] == inputMove && len(in.Data) == 3:
			at, ok := g.painters[p]
			if !ok {
				continue
			}
			x := min(max(int(at[0])+clamp(int8(in.Data[1])), 0), side-1)
			y := min(max(int(at[1])+clamp(int8(in.Data[2])), 0), side-1)
			g.painters[p] = [2]uint8{uint8(x), uint8(y)}
			g.cells[y*side+x] = uint8(p)
		}
	}
}

func clamp(d int8) int { return max(min(int(d), 1), -1) }

// Entities yields the painted cells, then the painters, ascending id.
func (g *Game) Entities() iter.Seq2[uint32, []byte] {
	return func(yield func(uint32, []byte) bool) {
		for i, c := range g.cells {
			if c == 0 {
				continue
			}
			g.buf[0] = c
			if !yield(uint32(i+1), g.buf[:1]) {
				return
			}
		}
		for p := uint32(1); p <= 255; p++ {
			at, ok := g.painters[p]
			if !ok {
				continue
			}
			g.buf = at
			if !yield(painterBase+p, g.buf[:2]) {
				return
			}
		}
	}
}

// SetEntity creates or replaces an entity from its encoding (a late
// joiner's state, or a repair after a desync).
func (g *Game) SetEntity(id uint32, data []byte) error {
	switch {
	case id >= 1 && id <= side*side && len(data) == 1 && data[0] != 0:
		g.cells[id-1] = data[0]
	case id > painterBase && id <= painterBase+255 && len(data) == 2 && data[0] < side && data[1] < side:
		g.painters[id-painterBase] = [2]uint8{data[0], data[1]}
	default:
		return errEncoding
	}
	return nil
}

// RemoveEntity deletes an entity.
func (g *Game) RemoveEntity(id uint32) {
	switch {
	case id >= 1 && id <= side*side:
		g.cells[id-1] = 0
	case id > painterBase:
		delete(g.painters, id-painterBase)
	}
}

// Reset empties the state.
func (g *Game) Reset() {
	g.cells = [side * side]uint8{}
	clear(g.painters)
}

// Painted counts the painted cells and the cells of colour p.
func (g *Game) Painted(p uint32) (all, mine int) {
	for _, c := range g.cells {
		if c != 0 {
			all++
		}
		if uint32(c) == p {
			mine++
		}
	}
	return all, mine
}
