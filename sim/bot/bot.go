package bot

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Bot plays one player of the reference game by reading the simulation's
// public state and issuing orders, as a human at the keyboard would. It is
// deterministic: the same seed and the same observed states give the same
// orders. It has its own random generator and never touches the
// simulation's, like every cosmetic or client-side consumer of randomness.
type Bot struct {
	player protocol.PlayerID
	rng    sim.SplitMix64
	decide uint64 // decisions so far

	idle    []protocol.EntityID
	enemies []sim.EntityState
	mine    []sim.EntityState // own structures
}

// DecisionPeriod is how many ticks apart a bot thinks; bots of different
// players think on different ticks.
const DecisionPeriod = 10

// TickWindow is the sub-tick time range, in microseconds, of the hints a bot
// attaches to its orders (one tick at 15 ticks per second).
const TickWindow = 66_667

// groupSize is the largest group a bot orders at once.
const groupSize = 32

// reserve is the credits a bot keeps for production when it builds.
const reserve = 400

// New returns a bot for player, seeded with seed.
func New(player protocol.PlayerID, seed uint64) *Bot {
	return &Bot{player: player, rng: sim.SplitMix64{S: seed ^ uint64(player)*0x9e3779b97f4a7c15}}
}

// Player is the player the bot plays.
func (b *Bot) Player() protocol.PlayerID { return b.player }

// World is what a bot reads: the public state of a *sim.Sim, or the
// partial world of a client that receives only what its player sees (a
// fog-authoritative client). The bot never reads anything else, so it
// plays from exactly what the world shows it.
type World interface {
	// Tick is the tick the world is at.
	Tick() uint64
	// Entities lists the entities the world holds, in ascending ID order.
	Entities() []sim.EntityState
	// Credits is a player's balance (a client that cannot know it may
	// report a large one; the simulation rejects what is unaffordable).
	Credits(protocol.PlayerID) int32
	// Terrain is the static map.
	Terrain() *sim.Terrain
}

// Orders appends the bot's orders for the tick s is about to simulate.
func (b *Bot) Orders(s World, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	if (s.Tick()+uint64(b.player))%DecisionPeriod != 0 {
		return dst
	}
	b.decide++
	b.observe(s)
	if len(b.enemies) == 0 {
		return b.scout(s, dst)
	}
	aim := b.pickTarget()
	for len(b.idle) > 0 {
		n := min(len(b.idle), groupSize)
		group := append([]protocol.EntityID(nil), b.idle[:n]...)
		b.idle = b.idle[n:]
		var o protocol.PlayerOrder
		switch roll := b.rng.Intn(100); {
		case roll < 70:
			o = protocol.Attack{Units: group, Target: protocol.Target{Kind: protocol.TargetGround, Pos: aim.Pos}}
		case roll < 90:
			o = protocol.Attack{Units: group, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: aim.ID}}
		default:
			o = protocol.Move{Units: group, Target: b.near(s, aim.Pos, 4)}
		}
		dst = b.emit(dst, o)
	}
	for _, st := range b.mine {
		r := sim.RulesOf(st.Type)
		switch {
		case r.Produces != sim.TypeNone && b.rng.Intn(4) == 0:
			dst = b.emit(dst, protocol.SetRallyPoint{Building: st.ID, Pos: b.near(s, aim.Pos, 3)})
		case st.Type != sim.TypeHQ && st.Health < st.HealthMax/6 && st.Flags&sim.FlagUnderConstruction == 0:
			dst = b.emit(dst, protocol.Sell{Building: st.ID})
		}
	}
	if len(b.mine) > 0 && b.rng.Intn(8) == 0 {
		buildable := [...]sim.EntityType{sim.TypeTurret, sim.TypeBarracks, sim.TypeFactory}
		t := buildable[b.rng.Intn(uint64(len(buildable)))]
		if s.Credits(b.player) >= sim.RulesOf(t).Cost+reserve {
			home := b.mine[b.rng.Intn(uint64(len(b.mine)))].Pos
			dst = b.emit(dst, protocol.Build{Structure: protocol.StructureType(t), Pos: b.near(s, home, 5)})
		}
	}
	if b.rng.Intn(50) == 0 {
		// A confused (or cheating) client: order an enemy's unit. The
		// simulation must reject it, identically everywhere.
		dst = b.emit(dst, protocol.Move{Units: []protocol.EntityID{aim.ID}, Target: aim.Pos})
	}
	return dst
}

// scout sends one group of idle units to attack-move to a random point:
// what a bot does when it sees no enemy (under fog of war, or when every
// enemy is gone).
func (b *Bot) scout(s World, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	if len(b.idle) == 0 {
		return dst
	}
	t := s.Terrain()
	centre := protocol.WorldPos{X: protocol.SimCoord(t.Width()) * protocol.CellSize / 2, Y: protocol.SimCoord(t.Height()) * protocol.CellSize / 2}
	n := min(len(b.idle), groupSize)
	group := append([]protocol.EntityID(nil), b.idle[:n]...)
	aim := b.near(s, centre, max(t.Width(), t.Height())/2)
	return b.emit(dst, protocol.Attack{Units: group, Target: protocol.Target{Kind: protocol.TargetGround, Pos: aim}})
}

// observe collects idle own units, own structures and enemies.
func (b *Bot) observe(s World) {
	b.idle, b.enemies, b.mine = b.idle[:0], b.enemies[:0], b.mine[:0]
	for _, e := range s.Entities() {
		switch {
		case e.Owner == b.player && sim.CategoryOf(&e) == sim.CategoryUnit:
			if e.Anim == sim.AnimIdle && e.Target == 0 && sim.RulesOf(e.Type).Range > 0 {
				b.idle = append(b.idle, e.ID)
			}
		case e.Owner == b.player:
			b.mine = append(b.mine, e)
		case e.Owner != sim.Neutral:
			b.enemies = append(b.enemies, e)
		}
	}
}

// pickTarget chooses what to attack: usually the enemy nearest to the bot's
// first idle unit (or structure), sometimes any enemy at random.
func (b *Bot) pickTarget() sim.EntityState {
	if b.rng.Intn(10) < 3 || (len(b.idle) == 0 && len(b.mine) == 0) {
		return b.enemies[b.rng.Intn(uint64(len(b.enemies)))]
	}
	var from protocol.WorldPos
	if len(b.mine) > 0 {
		from = b.mine[0].Pos
	}
	best, bestD := 0, int64(-1)
	for i, e := range b.enemies {
		dx, dy := int64(e.Pos.X-from.X), int64(e.Pos.Y-from.Y)
		if d := dx*dx + dy*dy; bestD < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	return b.enemies[best]
}

// near returns a random point on the map within r cells of p.
func (b *Bot) near(s World, p protocol.WorldPos, r int) protocol.WorldPos {
	t := s.Terrain()
	span := uint64(2*r+1) * uint64(protocol.CellSize)
	q := protocol.WorldPos{
		X: p.X + protocol.SimCoord(b.rng.Intn(span)) - protocol.SimCoord(r)*protocol.CellSize,
		Y: p.Y + protocol.SimCoord(b.rng.Intn(span)) - protocol.SimCoord(r)*protocol.CellSize,
	}
	q.X = min(max(q.X, 0), protocol.SimCoord(t.Width())*protocol.CellSize-1)
	q.Y = min(max(q.Y, 0), protocol.SimCoord(t.Height())*protocol.CellSize-1)
	return q
}

func (b *Bot) emit(dst []protocol.TimestampedOrder, o protocol.PlayerOrder) []protocol.TimestampedOrder {
	return append(dst, protocol.TimestampedOrder{Player: b.player, Order: o, SubTickTime: uint32(b.rng.Intn(TickWindow))})
}
