package fogauth

import (
	"slices"

	"github.com/tickwire/tickwire/protocol"
)

// knowledge is what a client's player knows when its orders are
// validated: the entities its fog listed at the last Publish (its own
// among them) that the client acknowledged holding (its partial world,
// as far as the server can tell), and the cells its fog saw. It
// implements Knowledge.
type knowledge struct {
	player  protocol.PlayerID
	visible []protocol.EntityID // ascending
	view    *view
	game    Game
}

func (k *knowledge) Knows(id protocol.EntityID) bool {
	if _, ok := slices.BinarySearch(k.visible, id); !ok {
		return false
	}
	i, ok := k.view.find(id)
	return ok && k.view.entries[i].present
}

func (k *knowledge) SeesCell(x, y int) bool { return k.game.CellVisible(k.player, x, y) }

// knowledgeOf is c's player's knowledge now.
func (r *Room) knowledgeOf(c *viewer) knowledge {
	return knowledge{player: c.player, visible: r.game.Visible(c.player), view: &c.view, game: r.game}
}

// validate checks one order of c against its player's knowledge (see
// Game.Validate). The order names entities by c's aliases; a valid order
// is returned with the game's ids and without the units the player does
// not see, so the game accepts it as it is.
func (r *Room) validate(c *viewer, o protocol.PlayerOrder) (protocol.PlayerOrder, uint8) {
	o = c.view.names.translate(o)
	k := r.knowledgeOf(c)
	v := r.game.Validate(c.player, o, &k)
	if v != 0 {
		return nil, v
	}
	switch x := o.(type) {
	case protocol.Move:
		x.Units = knownUnits(x.Units, &k)
		return x, v
	case protocol.Attack:
		x.Units = knownUnits(x.Units, &k)
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
