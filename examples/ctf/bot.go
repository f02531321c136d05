package main

import (
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/protocol"
)

// Bot plays a team from what its client received (fogclient.Mind): two
// runners go for the enemy flag and bring it home, two guard their own
// flag and chase the enemies they see. It knows the field's layout (it
// is public), never where unseen enemies are.
type Bot struct {
	Team protocol.PlayerID
}

// Orders gives a Move for each of the team's runners every 10 ticks.
func (b Bot) Orders(w fogclient.World, tick uint64, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	if tick%10 != 0 {
		return dst
	}
	ents := w.Entities()
	enemy := 3 - int(b.Team)
	enemyFlag := flagHome(enemy)
	var intruders []protocol.WorldPos
	for _, e := range ents {
		x, _ := cell(e.Pos)
		switch {
		case e.Type == typeFlag && int(e.Owner) == enemy:
			enemyFlag = e.Pos
		case e.Type == typeRunner && e.Owner != b.Team && (b.Team == 1) == (x < width/2):
			intruders = append(intruders, e.Pos)
		}
	}
	n := 0
	for _, e := range ents {
		if e.Type != typeRunner || e.Owner != b.Team {
			continue
		}
		goal := enemyFlag
		switch {
		case e.Cargo != 0:
			goal = center(base(int(b.Team)), height/2) // bring it home
		case n >= 2 && len(intruders) > 0:
			goal = intruders[n%len(intruders)] // chase
		case n >= 2:
			goal = flagHome(int(b.Team)) // guard
		}
		dst = append(dst, protocol.TimestampedOrder{Player: b.Team, Order: protocol.Move{Units: []protocol.EntityID{e.ID}, Target: goal}})
		n++
	}
	return dst
}
