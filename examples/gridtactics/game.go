package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/tickwire/tickwire/protocol"
)

// The game's own orders travel as protocol.Custom: Kind is the game's
// order number, Payload its encoding. tickwire relays them untouched.
const (
	orderMove   uint16 = 1 // payload: unit, dx, dy (int8)
	orderAttack uint16 = 2 // payload: unit, target unit
)

// boardSize is the side of the square board, in cells.
const boardSize = 8

// unit is one piece on the board.
type unit struct {
	owner  protocol.PlayerID
	x, y   int
	health int
}

// Game is a deterministic grid tactics game: every player starts with
// three units in its own row; a unit moves one cell a tick or hits an
// adjacent enemy for one point. It implements lockstep.Simulation: every
// client applies the same confirmed ticks and reaches the same state.
type Game struct {
	units []unit // index = unit number, fixed for the match
	tick  uint64
}

// NewGame sets up the board for players players.
func NewGame(players int) *Game {
	g := &Game{}
	for p := 1; p <= players; p++ {
		row := (p - 1) * (boardSize - 1) / max(players-1, 1)
		for i := range 3 {
			g.units = append(g.units, unit{owner: protocol.PlayerID(p), x: 2 + 2*i, y: row, health: 3})
		}
	}
	return g
}

// errOrder reports an order the game cannot decode: a bug in a client,
// since the relay delivers orders as they were sent.
var errOrder = errors.New("gridtactics: malformed order")

// ApplyTick applies one confirmed tick's orders in the relay's order.
// An order for another player's unit, a dead unit or an occupied cell is
// ignored: every client ignores it the same way.
func (g *Game) ApplyTick(t protocol.TickOrders) error {
	for _, o := range t.Orders {
		c, ok := o.Order.(protocol.Custom)
		if !ok {
			continue // tickwire's own orders (Idle): nothing to do
		}
		if len(c.Payload) < 2 || (c.Kind == orderMove && len(c.Payload) < 3) {
			return fmt.Errorf("%w: kind %d, %d bytes", errOrder, c.Kind, len(c.Payload))
		}
		u := int(c.Payload[0])
		if u >= len(g.units) || g.units[u].owner != o.Player || g.units[u].health <= 0 {
			continue
		}
		switch c.Kind {
		case orderMove:
			g.move(u, int(int8(c.Payload[1])), int(int8(c.Payload[2])))
		case orderAttack:
			g.attack(u, int(c.Payload[1]))
		}
	}
	g.tick++
	return nil
}

func (g *Game) move(u, dx, dy int) {
	x, y := g.units[u].x+max(min(dx, 1), -1), g.units[u].y+max(min(dy, 1), -1)
	if x < 0 || y < 0 || x >= boardSize || y >= boardSize || g.at(x, y) >= 0 {
		return
	}
	g.units[u].x, g.units[u].y = x, y
}

func (g *Game) attack(u, target int) {
	if target >= len(g.units) || g.units[target].health <= 0 || g.units[target].owner == g.units[u].owner {
		return
	}
	a, t := &g.units[u], &g.units[target]
	if max(a.x-t.x, t.x-a.x) <= 1 && max(a.y-t.y, t.y-a.y) <= 1 {
		t.health--
	}
}

// at is the living unit on a cell, or -1.
func (g *Game) at(x, y int) int {
	for i, u := range g.units {
		if u.health > 0 && u.x == x && u.y == y {
			return i
		}
	}
	return -1
}

// StateHash summarises the state; the relay compares the players'
// hashes to detect a desync.
func (g *Game) StateHash() uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, u := range g.units {
		for _, v := range [4]int{int(u.owner), u.x, u.y, u.health} {
			binary.LittleEndian.PutUint64(b[:], uint64(v))
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// Alive counts player's living units.
func (g *Game) Alive(player protocol.PlayerID) int {
	n := 0
	for _, u := range g.units {
		if u.owner == player && u.health > 0 {
			n++
		}
	}
	return n
}

// Move is a move order for the relay.
func Move(u int, dx, dy int8) protocol.Custom {
	return protocol.Custom{Kind: orderMove, Payload: []byte{byte(u), byte(dx), byte(dy)}}
}

// Attack is an attack order for the relay.
func Attack(u, target int) protocol.Custom {
	return protocol.Custom{Kind: orderAttack, Payload: []byte{byte(u), byte(target)}}
}
