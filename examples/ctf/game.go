package main

import (
	"errors"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/protocol"
)

// The field is width × height cells; team 1's base is the left edge,
// team 2's the right. Each team has runners runners (entity ids
// 1..2·runners, team 1 first) and a flag (ids 2·runners+1, +2).
const (
	width, height = 32, 16
	runners       = 4
	sightCells    = 4 // a runner sees this far, in cells (a square)
	speed         = protocol.CellSize / 2
)

// Entity types, as the wire carries them.
const (
	typeRunner protocol.EntityType = 1
	typeFlag   protocol.EntityType = 2
)

// Rejection reasons (fogauth sends them to the client as they are).
const (
	reasonUnknownUnit uint8 = 1 // an id the player does not see, or one that is not its runner
	reasonOffField    uint8 = 2
	reasonUnsupported uint8 = 3
)

var errPlayers = errors.New("ctf: a match has two teams")

// Game is capture the flag for two teams. Runners move toward the cell
// their player sends them to; a runner on the enemy flag carries it, and
// scores by bringing it home; a runner tagged by an enemy in the enemy's
// half goes back to its base and drops the flag. A player sees only
// around its runners (and its own flag). It implements fogauth.Game.
type Game struct {
	ents   []protocol.EntityState // runners then flags, ascending id
	goal   []protocol.WorldPos    // per runner: where it heads
	score  [3]int                 // per team
	tick   uint64
	sight  [3][]bool // per team: visible cells, at the last UpdateSight
	listed [3][]protocol.EntityID
}

var _ fogauth.Game = (*Game)(nil)

// NewGame sets up the field; players must be 2. It has the signature of
// fogserver.Config.NewGame (units is ignored: each team has runners).
func NewGame(players, _ int, mapSeed, _ uint64) (fogauth.Game, int, error) {
	if players != 2 {
		return nil, 0, errPlayers
	}
	g := &Game{}
	for team := 1; team <= 2; team++ {
		for i := range runners {
			y := 2 + i*(height-4)/(runners-1) + int(mapSeed%2)
			g.ents = append(g.ents, protocol.EntityState{ID: protocol.EntityID(len(g.ents) + 1), Type: typeRunner,
				Owner: protocol.PlayerID(team), Pos: center(base(team), y), Health: 1, HealthMax: 1})
		}
	}
	for team := 1; team <= 2; team++ {
		g.ents = append(g.ents, protocol.EntityState{ID: protocol.EntityID(len(g.ents) + 1), Type: typeFlag,
			Owner: protocol.PlayerID(team), Pos: flagHome(team), Health: 1, HealthMax: 1})
	}
	g.goal = make([]protocol.WorldPos, 2*runners)
	for i := range g.goal {
		g.goal[i] = g.ents[i].Pos
	}
	for t := 1; t <= 2; t++ {
		g.sight[t] = make([]bool, width*height)
	}
	return g, width, nil
}

func base(team int) int {
	if team == 1 {
		return 0
	}
	return width - 1
}

func flagHome(team int) protocol.WorldPos { return center(base(team), height/2) }

func center(x, y int) protocol.WorldPos {
	return protocol.WorldPos{X: protocol.SimCoord(x)*protocol.CellSize + protocol.CellSize/2, Y: protocol.SimCoord(y)*protocol.CellSize + protocol.CellSize/2}
}

func cell(p protocol.WorldPos) (int, int) {
	return int(p.X / protocol.CellSize), int(p.Y / protocol.CellSize)
}

func (g *Game) Players() int                            { return 2 }
func (g *Game) Tick() uint64                            { return g.tick }
func (g *Game) Entities() []protocol.EntityState        { return g.ents }
func (g *Game) Size() (int, int)                        { return width, height }
func (g *Game) IsUnit(e *protocol.EntityState) bool     { return e.Type == typeRunner }
func (g *Game) IsDecoration(*protocol.EntityState) bool { return false }

// SetTargetFilter: runners never pick targets by themselves (a tag is
// contact, not aim), so there is nothing to filter.
func (g *Game) SetTargetFilter(func(protocol.PlayerID, *protocol.EntityState) bool) {}

// Score is team's captures.
func (g *Game) Score(team protocol.PlayerID) int { return g.score[team] }

// Validate accepts a Move of the player's own runners to a cell on the
// field. It decides from what the player knows only: an id it does not
// know is answered as one no entity has.
func (g *Game) Validate(player protocol.PlayerID, o protocol.PlayerOrder, k fogauth.Knowledge) uint8 {
	m, ok := o.(protocol.Move)
	if !ok {
		return reasonUnsupported
	}
	for _, id := range m.Units {
		if !k.Knows(id) || int(id) > len(g.goal) || g.ents[id-1].Owner != player {
			return reasonUnknownUnit
		}
	}
	if x, y := cell(m.Target); m.Target.X < 0 || m.Target.Y < 0 || x >= width || y >= height {
		return reasonOffField
	}
	return 0
}

// Step sets the runners' goals from the tick's moves, then moves,
// carries, scores and tags.
func (g *Game) Step(orders []protocol.TimestampedOrder, _ func(*protocol.TimestampedOrder, uint8)) error {
	for _, o := range orders {
		if m, ok := o.Order.(protocol.Move); ok {
			for _, id := range m.Units {
				g.goal[id-1] = m.Target
			}
		}
	}
	for i := range g.goal {
		r := &g.ents[i]
		r.Pos.X += max(min(g.goal[i].X-r.Pos.X, speed), -speed)
		r.Pos.Y += max(min(g.goal[i].Y-r.Pos.Y, speed), -speed)
	}
	for team := 1; team <= 2; team++ {
		g.carry(team)
	}
	g.tag()
	g.tick++
	return nil
}

// carry moves each flag with its carrier (Target names it), picks up a
// flag a runner stands on, and scores a flag brought home.
func (g *Game) carry(team int) {
	flag := &g.ents[2*runners+team-1]
	if flag.Target == 0 {
		for i := range g.goal {
			r := &g.ents[i]
			if int(r.Owner) != team && near(r.Pos, flag.Pos, 1) {
				flag.Target, r.Cargo = r.ID, 1
				break
			}
		}
		return
	}
	carrier := &g.ents[flag.Target-1]
	flag.Pos = carrier.Pos
	if x, _ := cell(carrier.Pos); x == base(int(carrier.Owner)) {
		g.score[carrier.Owner]++
		flag.Pos, flag.Target, carrier.Cargo = flagHome(team), 0, 0
	}
}

// tag sends home a runner touched by an enemy in the enemy's half.
func (g *Game) tag() {
	for i := range g.goal {
		r := &g.ents[i]
		x, y := cell(r.Pos)
		if (r.Owner == 1) == (x < width/2) {
			continue // at home: safe
		}
		for j := range g.goal {
			if e := &g.ents[j]; e.Owner != r.Owner && near(e.Pos, r.Pos, 1) {
				for f := 2 * runners; f < len(g.ents); f++ {
					if g.ents[f].Target == r.ID {
						g.ents[f].Pos, g.ents[f].Target = flagHome(int(g.ents[f].Owner)), 0
					}
				}
				r.Pos, r.Cargo = center(base(int(r.Owner)), y), 0
				g.goal[i] = r.Pos
				break
			}
		}
	}
}

func near(a, b protocol.WorldPos, cells int) bool {
	ax, ay := cell(a)
	bx, by := cell(b)
	return max(ax-bx, bx-ax) <= cells && max(ay-by, by-ay) <= cells
}

// UpdateSight marks the cells each team's runners see, and lists what
// is in them (and, always, the team's own entities).
func (g *Game) UpdateSight(bool) (recomputed, skipped int) {
	for team := 1; team <= 2; team++ {
		s := g.sight[team]
		clear(s)
		for i := range g.goal {
			if r := &g.ents[i]; int(r.Owner) == team {
				rx, ry := cell(r.Pos)
				for y := max(ry-sightCells, 0); y <= min(ry+sightCells, height-1); y++ {
					for x := max(rx-sightCells, 0); x <= min(rx+sightCells, width-1); x++ {
						s[y*width+x] = true
					}
				}
			}
		}
		g.listed[team] = g.listed[team][:0]
		for i := range g.ents {
			e := &g.ents[i]
			if x, y := cell(e.Pos); int(e.Owner) == team || g.CellVisible(protocol.PlayerID(team), x, y) {
				g.listed[team] = append(g.listed[team], e.ID)
			}
		}
	}
	return 2, 0
}

func (g *Game) Visible(player protocol.PlayerID) []protocol.EntityID { return g.listed[player] }

func (g *Game) CellVisible(player protocol.PlayerID, x, y int) bool {
	return x >= 0 && y >= 0 && x < width && y < height && g.sight[player][y*width+x]
}
