package main

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/protocol"
)

// twin is one of two rooms playing the same match, except where team 1
// cannot see.
type twin struct {
	room *fogauth.Room
	game *Game
}

// newTwin starts a room; hidden moves team 2's runners to other rows, far
// from team 1. wrap, if set, wraps the game (the leak control below).
func newTwin(t *testing.T, hidden int, wrap func(*Game) fogauth.Game) twin {
	t.Helper()
	g, _, err := NewGame(2, 0, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	game := g.(*Game)
	for i := runners; i < 2*runners; i++ {
		_, y := cell(game.ents[i].Pos)
		game.ents[i].Pos = center(width-1, (y+hidden)%height)
		game.goal[i] = game.ents[i].Pos
	}
	var hosted fogauth.Game = game
	if wrap != nil {
		hosted = wrap(game)
	}
	r, err := fogauth.New(fogauth.Config{}, hosted, 0)
	if err != nil {
		t.Fatal(err)
	}
	for p := protocol.PlayerID(1); p <= 2; p++ {
		if err := r.AddClient(fogauth.ClientID(p), p); err != nil {
			t.Fatal(err)
		}
	}
	return twin{room: r, game: game}
}

// prober is team 1's mind: it keeps its runners in its own half, and
// probes ids it does not hold (which may be team 2's hidden runners) and
// cells off the field.
func probe(rng *rand.Rand, w fogclient.World) []protocol.PlayerOrder {
	var out []protocol.PlayerOrder
	for _, e := range w.Entities() {
		if e.Type == typeRunner && e.Owner == 1 {
			out = append(out, protocol.Move{Units: []protocol.EntityID{e.ID}, Target: center(rng.IntN(width/2-sightCells-2), rng.IntN(height))})
		}
	}
	hidden := protocol.EntityID(1 + rng.IntN(2*runners+8))
	out = append(out, protocol.Move{Units: []protocol.EntityID{hidden}, Target: center(1, 1)},
		protocol.Move{Units: []protocol.EntityID{1}, Target: protocol.WorldPos{X: -1}})
	return out
}

// differs plays the twins for ticks ticks, team 1's client fed by the
// first and its messages given to both, and reports the first tick at
// which the two rooms sent team 1 different bytes (0: never).
func differs(t *testing.T, a, b twin, ticks int, seed uint64) uint64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	c := fogauth.NewClient(1)
	interval := a.room.Config().TickInterval()
	for tick := 1; tick <= ticks; tick++ {
		if tick%5 == 0 {
			for _, o := range probe(rng, c.World()) {
				c.SubmitOrder(protocol.TimestampedOrder{Player: 1, Order: o})
			}
		}
		orders, ack, err := c.Flush()
		if err != nil {
			t.Fatal(err)
		}
		for _, room := range []*fogauth.Room{a.room, b.room} {
			for _, m := range append(orders, ack) {
				if len(m) > 0 {
					if err := room.Step(1, m); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := room.RunDue(time.Duration(tick) * interval); err != nil {
				t.Fatal(err)
			}
		}
		ra, rb := toTeam1(a.room), toTeam1(b.room)
		if len(ra) != len(rb) {
			return uint64(tick)
		}
		for i := range ra {
			if !bytes.Equal(ra[i], rb[i]) {
				return uint64(tick)
			}
			if err := c.Receive(ra[i]); err != nil {
				t.Fatal(err)
			}
		}
		a.room.Advance()
		b.room.Advance()
	}
	// The run meant something: the client held its team and had probes
	// refused.
	if c.World().Len() < runners || c.Counters().Rejections == 0 {
		t.Fatalf("team 1 holds %d entities, %d rejections", c.World().Len(), c.Counters().Rejections)
	}
	return 0
}

// toTeam1 is what the room sends team 1's client now.
func toTeam1(r *fogauth.Room) [][]byte {
	var out [][]byte
	for _, e := range r.Ready().Messages {
		if e.To == 1 {
			out = append(out, bytes.Clone(e.Data))
		}
	}
	return out
}

// TestNonInterference: two matches that differ only in where team 2's
// runners stand, out of team 1's sight, send team 1's client the very
// same bytes for 600 ticks while it probes, over several seeds. The
// mode's rules (validation against knowledge, aliases, targets) hold for
// this game as for the reference RTS.
func TestNonInterference(t *testing.T) {
	for seed := range uint64(4) {
		a, b := newTwin(t, 0, nil), newTwin(t, 3+int(seed), nil)
		if a.game.Tick() != 0 || len(a.game.Entities()) != len(b.game.Entities()) {
			t.Fatal("twins differ in shape")
		}
		if tick := differs(t, a, b, 600, seed); tick != 0 {
			t.Fatalf("seed %d: team 1 received different bytes at tick %d", seed, tick)
		}
	}
}

// leaky is a game whose sight lists every entity: the mode can hide only
// what the game says is hidden.
type leaky struct{ *Game }

func (l leaky) Visible(protocol.PlayerID) []protocol.EntityID {
	ids := make([]protocol.EntityID, len(l.ents))
	for i := range l.ents {
		ids[i] = l.ents[i].ID
	}
	return ids
}

// TestNonInterferenceCatchesALeak: the same twins with a game that shows
// everything differ at once, so the test above can fail.
func TestNonInterferenceCatchesALeak(t *testing.T) {
	wrap := func(g *Game) fogauth.Game { return leaky{g} }
	a, b := newTwin(t, 0, wrap), newTwin(t, 3, wrap)
	if tick := differs(t, a, b, 60, 1); tick == 0 {
		t.Fatal("a game that leaks hidden runners sent the same bytes")
	}
}
