package rtsgame

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Prober is a cheating client's mind, for drills and tests: from its
// partial world only, it gives every tick orders meant to make the
// server's answers reveal hidden entities, and counts what the answers
// let it infer. With a maphack-proof server that count is 0.
//
// Its probes, in pairs of one kind given in the same tick:
//   - an id it does not hold (an alias it never received, however it came
//     by the number), and a control id no entity can have: moved, attacked
//     with its own units, sold, given a rally point. Both answers must be
//     the same Rejection; a probe answered otherwise (accepted, or refused
//     for another reason) is suspect;
//   - a Build on a passable cell it cannot see (a random one, or one just past its
//     sight near its own buildings, inside the build radius): refused as
//     blocked, or accepted, it is suspect.
//
// A suspect id the client later receives (the server had sent its Enter,
// still in flight) was visible, not hidden; the others, and every suspect
// Build, are inferred hidden entities.
type Prober struct {
	player   protocol.PlayerID
	terrain  *sim.Terrain
	rng      sim.SplitMix64
	sent     uint64                 // probe and control orders given
	refused  uint64                 // orders counted in Rejections
	tickKind map[rejectionKey]uint8 // first reason per (tick, kind)
	suspects map[protocol.EntityID]bool
	held     map[protocol.EntityID]bool // every id ever in the world
	probed   []protocol.EntityID        // ids probed, in order (a tick's pairs)
	builds   int                        // Build probes refused as blocked
	probes   int
}

type rejectionKey struct {
	tick uint64
	kind protocol.OrderKind
}

// controlID is an alias no client is ever given (aliases are dense from
// 1; a client sees far fewer than 2³¹ entities).
const controlID protocol.EntityID = 1<<31 + 7

// NewProber returns a prober for player on the match's map, its choices
// drawn from seed.
func NewProber(player protocol.PlayerID, terrain *sim.Terrain, seed uint64) *Prober {
	return &Prober{player: player, terrain: terrain, rng: sim.SplitMix64{S: seed}, tickKind: map[rejectionKey]uint8{},
		suspects: map[protocol.EntityID]bool{}, held: map[protocol.EntityID]bool{}}
}

// Orders appends the probes for one tick, chosen from the client's partial
// world (a fogclient.Mind).
func (p *Prober) Orders(w Partial, tick uint64, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	var own, structures []protocol.EntityState
	high := protocol.EntityID(0)
	for _, e := range w.Entities() {
		p.held[e.ID] = true
		high = max(high, e.ID)
		switch {
		case e.Owner == p.player && sim.CategoryOf(&e) == sim.CategoryUnit && sim.RulesOf(e.Type).Range > 0:
			own = append(own, e)
		case e.Owner == p.player:
			structures = append(structures, e)
		}
	}
	probe := p.unheld(high)
	pos := sim.CellCenter(int(p.rng.Intn(uint64(p.terrain.Width()))), int(p.rng.Intn(uint64(p.terrain.Height()))))
	var pair [2]protocol.PlayerOrder
	switch tick % 4 {
	case 0:
		for i, id := range [2]protocol.EntityID{probe, controlID} {
			pair[i] = protocol.Move{Units: []protocol.EntityID{id}, Target: pos}
		}
	case 1:
		if len(own) == 0 {
			return p.build(own, structures, dst)
		}
		attacker := []protocol.EntityID{own[p.rng.Intn(uint64(len(own)))].ID}
		for i, id := range [2]protocol.EntityID{probe, controlID} {
			pair[i] = protocol.Attack{Units: attacker, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: id}}
		}
	case 2:
		for i, id := range [2]protocol.EntityID{probe, controlID} {
			pair[i] = protocol.Sell{Building: id}
		}
	default:
		for i, id := range [2]protocol.EntityID{probe, controlID} {
			pair[i] = protocol.SetRallyPoint{Building: id, Pos: pos}
		}
	}
	for _, o := range pair {
		p.sent++
		dst = append(dst, protocol.TimestampedOrder{Player: p.player, Order: o})
	}
	p.probed = append(p.probed, probe)
	p.probes++
	return p.build(own, structures, dst)
}

// unheld is an id the client never held: past the highest it holds, or
// below it.
func (p *Prober) unheld(high protocol.EntityID) protocol.EntityID {
	for range 8 {
		id := protocol.EntityID(1 + p.rng.Intn(uint64(high)+32))
		if !p.held[id] {
			return id
		}
	}
	return high + 1 + protocol.EntityID(p.rng.Intn(32))
}

// build appends a Build probe on a cell the client cannot see.
func (p *Prober) build(own, structures []protocol.EntityState, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	t := p.terrain
	for range 16 {
		x, y := int(p.rng.Intn(uint64(t.Width()))), int(p.rng.Intn(uint64(t.Height())))
		if len(structures) > 0 && p.rng.Intn(2) == 0 {
			// Just past its sight, inside the build radius.
			sx, sy := sim.CellOf(structures[p.rng.Intn(uint64(len(structures)))].Pos)
			x, y = sx+int(p.rng.Intn(21))-10, sy+int(p.rng.Intn(21))-10
		}
		pos := sim.CellCenter(x, y)
		if x < 0 || y < 0 || x >= t.Width() || y >= t.Height() || !t.Passable(x, y) || p.sees(pos, own, structures) {
			continue
		}
		p.sent++
		p.probes++
		return append(dst, protocol.TimestampedOrder{Player: p.player, Order: protocol.Build{Structure: protocol.StructureType(sim.TypeBarracks), Pos: pos}})
	}
	return dst
}

// sees reports whether one of the client's entities might see pos: within
// its sight range plus a cell (the fog is drawn on whole cells).
func (p *Prober) sees(pos protocol.WorldPos, groups ...[]protocol.EntityState) bool {
	for _, g := range groups {
		for _, e := range g {
			r := int64(sim.RulesOf(e.Type).Sight + 2*protocol.CellSize)
			dx, dy := int64(e.Pos.X-pos.X), int64(e.Pos.Y-pos.Y)
			if dx*dx+dy*dy <= r*r {
				return true
			}
		}
	}
	return false
}

// Rejection is what the prober reads of one Rejection the client
// received (fogauth.Rejection's fields). Many marks the server's grouping
// of a tick's further refusals (fogauth.RejectMany), whose kind says
// nothing.
type Rejection struct {
	Tick   uint64
	Reason uint8
	Many   bool
	Kind   protocol.OrderKind
	Count  uint16
}

// Observe takes one Rejection the client received.
func (p *Prober) Observe(r Rejection) {
	p.refused += uint64(r.Count)
	switch {
	case r.Kind == protocol.KindBuild:
		if uint8(sim.RejectBlocked) == r.Reason {
			p.builds += int(r.Count)
		}
		return
	case r.Many:
		return
	}
	k := rejectionKey{r.Tick, r.Kind}
	if first, ok := p.tickKind[k]; !ok {
		p.tickKind[k] = r.Reason
	} else if first != r.Reason {
		// A probe and its control answered differently: every probe of the
		// kind this tick is suspect.
		for _, id := range p.probed[max(len(p.probed)-4, 0):] {
			p.suspects[id] = true
		}
	}
}

// Probes is the number of probes given.
func (p *Prober) Probes() int { return p.probes }

// Inferred is the number of hidden entities the server's answers revealed
// so far: suspects never received, Build probes refused as blocked, and
// probes accepted (sent but never refused; count only once every
// Rejection has arrived).
func (p *Prober) Inferred(ents []protocol.EntityState) int {
	for _, e := range ents {
		p.held[e.ID] = true
	}
	n := p.builds
	for id := range p.suspects {
		if !p.held[id] {
			n++
		}
	}
	if p.sent > p.refused {
		n += int(p.sent - p.refused)
	}
	return n
}
