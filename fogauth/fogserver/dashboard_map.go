package fogserver

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/room"
)

// spectatorMap is the room's map for the dashboard: every entity with its
// owner and position, and each player's sight (cells and entities) as the
// game computed it at the last tick. Bounded by room.MaxMapEntities and
// room.MaxMapCells.
func (r *fogRoom) spectatorMap() *room.Map {
	g := r.core.Game()
	w, h := g.Size()
	m := &room.Map{Width: w, Height: h}
	for _, e := range g.Entities() {
		if len(m.Entities) == room.MaxMapEntities {
			break
		}
		m.Entities = append(m.Entities, room.MapEntity{ID: uint32(e.ID), Owner: int(e.Owner), Unit: g.IsUnit(&e),
			X: float64(e.Pos.X) / float64(protocol.CellSize), Y: float64(e.Pos.Y) / float64(protocol.CellSize)})
	}
	for p := 1; p <= g.Players(); p++ {
		player := protocol.PlayerID(p)
		v := room.Vision{Player: p, Cells: room.CellBitmap(w, h, func(x, y int) bool { return g.CellVisible(player, x, y) })}
		for _, id := range g.Visible(player) {
			if len(v.Visible) == room.MaxMapEntities {
				break
			}
			v.Visible = append(v.Visible, uint32(id))
		}
		m.Vision = append(m.Vision, v)
	}
	return m
}
