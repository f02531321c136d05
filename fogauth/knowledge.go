package fogauth

import (
	"slices"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// knowledge is what a client's player knows when its orders are
// validated: the entities its fog listed at the last Publish (its own
// among them) that the client acknowledged holding (its partial world,
// as far as the server can tell), and the cells its fog saw. It
// implements sim.Knowledge.
type knowledge struct {
	player  protocol.PlayerID
	visible []protocol.EntityID // ascending
	view    *view
	fog     cellFog
}

// cellFog answers whether a player saw a cell at its last fog update
// (sim.RadiusFogProvider does).
type cellFog interface {
	CellVisible(player protocol.PlayerID, x, y int) bool
}

func (k *knowledge) Knows(id protocol.EntityID) bool {
	if _, ok := slices.BinarySearch(k.visible, id); !ok {
		return false
	}
	i, ok := k.view.find(id)
	return ok && k.view.entries[i].present
}

func (k *knowledge) SeesCell(x, y int) bool { return k.fog.CellVisible(k.player, x, y) }

// knowledgeOf is c's player's knowledge now.
func (r *Room) knowledgeOf(c *viewer) knowledge {
	return knowledge{player: c.player, visible: r.fog.VisibleEntities(c.player), view: &c.view, fog: r.cells}
}

// validate checks one order of c against its player's knowledge (see
// sim.ValidateKnown). The order names entities by c's aliases; a valid
// order is returned with simulation ids and without the units the player
// does not see, so the simulation accepts it as it is.
func (r *Room) validate(c *viewer, o protocol.PlayerOrder) (protocol.PlayerOrder, sim.OrderValidity) {
	o = c.view.names.translate(o)
	k := r.knowledgeOf(c)
	v := r.sim.ValidateKnown(c.player, o, &k)
	if v != sim.Valid {
		return nil, v
	}
	switch x := o.(type) {
	case protocol.Move:
		x.Units = sim.KnownUnits(x.Units, &k)
		return x, v
	case protocol.Attack:
		x.Units = sim.KnownUnits(x.Units, &k)
		return x, v
	}
	return o, v
}

// translate returns o with the entities it names given by their
// simulation ids instead of the client's aliases (an alias never given
// becomes 0, an id no entity has). Unit lists are rewritten in place: the
// decoder gave the order its own.
func (a *aliases) translate(o protocol.PlayerOrder) protocol.PlayerOrder {
	units := func(ids []protocol.EntityID) {
		for i, id := range ids {
			ids[i] = a.sim(id)
		}
	}
	switch x := o.(type) {
	case protocol.Move:
		units(x.Units)
	case protocol.Attack:
		units(x.Units)
		if x.Target.Kind == protocol.TargetEntity {
			x.Target.Entity = a.sim(x.Target.Entity)
		}
		return x
	case protocol.SetRallyPoint:
		x.Building = a.sim(x.Building)
		return x
	case protocol.Sell:
		x.Building = a.sim(x.Building)
		return x
	}
	return o
}
