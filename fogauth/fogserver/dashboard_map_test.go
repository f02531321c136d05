package fogserver

import (
	"encoding/base64"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/room"
)

// TestSpectatorMap: the map a fog room reports is the game's truth,
// checked against brute force over every cell and entity: each entity
// with its owner and cell position, each player's seen cells (the bitmap)
// and seen entities, the ones the game's sight gives.
func TestSpectatorMap(t *testing.T) {
	cfg := Config{NewGame: func(players, units int, mapSeed, simSeed uint64) (fogauth.Game, int, error) {
		return rtsgame.Start(players, units, mapSeed, simSeed)
	}, UnitsPerPlayer: 10, Seed: func() uint64 { return 5 }}.withDefaults()
	var now time.Duration
	p := room.Params{Name: "map", Seats: []room.Seat{{Player: 1}, {Player: 2}, {Player: 3}}, TickRate: 30,
		Clock: func() time.Duration { return now }}
	r, err := newRoom(cfg, &metrics{rooms: map[*fogRoom]struct{}{}}, p)
	if err != nil {
		t.Fatal(err)
	}
	for range 40 {
		now += time.Second / 30
		r.Tick(now)
		for r.HasReady() {
			r.Ready()
			r.Advance()
		}
	}
	m := r.Report(now).Map
	g := r.core.Game()
	w, h := g.Size()
	if m == nil || m.Width != w || m.Height != h || len(m.Vision) != 3 {
		t.Fatalf("map %dx%d with %d players' vision, want %dx%d and 3", m.Width, m.Height, len(m.Vision), w, h)
	}
	ents := g.Entities()
	if len(m.Entities) != len(ents) || len(ents) < 30 {
		t.Fatalf("%d entities on the map, the game has %d", len(m.Entities), len(ents))
	}
	for i, e := range ents {
		got := m.Entities[i]
		if got.ID != uint32(e.ID) || got.Owner != int(e.Owner) || got.Unit != g.IsUnit(&e) ||
			int(got.X) != int(e.Pos.X/protocol.CellSize) || int(got.Y) != int(e.Pos.Y/protocol.CellSize) {
			t.Fatalf("entity %d on the map %+v, in the game %+v", i, got, e)
		}
	}
	for _, v := range m.Vision {
		player := protocol.PlayerID(v.Player)
		bits, err := base64.StdEncoding.DecodeString(v.Cells)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for y := range h {
			for x := range w {
				i := y*w + x
				got := bits[i/8]&(1<<(i%8)) != 0
				if got != g.CellVisible(player, x, y) {
					t.Fatalf("player %d, cell (%d,%d): map says %v", v.Player, x, y, got)
				}
				if got {
					seen++
				}
			}
		}
		want := make([]uint32, 0)
		for _, id := range g.Visible(player) {
			want = append(want, uint32(id))
		}
		if seen == 0 || seen == w*h || !slices.Equal(v.Visible, want) {
			t.Fatalf("player %d sees %d of %d cells and entities %v, want %v", v.Player, seen, w*h, v.Visible, want)
		}
	}
}

// BenchmarkSpectatorMap is the dashboard's cost in a fog room: one
// report (made once a second) of an 8-player room of 50-unit armies, its
// map with every entity and each player's seen cells and entities.
func BenchmarkSpectatorMap(b *testing.B) {
	cfg := Config{NewGame: func(players, units int, mapSeed, simSeed uint64) (fogauth.Game, int, error) {
		return rtsgame.Start(players, units, mapSeed, simSeed)
	}, UnitsPerPlayer: 50, Seed: func() uint64 { return 5 }}.withDefaults()
	var now time.Duration
	seats := make([]room.Seat, 8)
	for i := range seats {
		seats[i].Player = protocol.PlayerID(i + 1)
	}
	r, err := newRoom(cfg, &metrics{rooms: map[*fogRoom]struct{}{}}, room.Params{Name: "map", Seats: seats, TickRate: 30,
		Clock: func() time.Duration { return now }})
	if err != nil {
		b.Fatal(err)
	}
	for range 10 {
		now += time.Second / 30
		r.Tick(now)
		for r.HasReady() {
			r.Ready()
			r.Advance()
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		r.spectatorMap()
	}
}
