package sim

import "github.com/tickwire/tickwire/protocol"

// moveToward moves entity i one tick toward goal and reports whether it has
// arrived (or can never arrive: the goal is cut off). A unit walks in a
// straight line until that line would enter a blocking cell; from then on
// it follows the flow field toward the goal's cell until it gets a new order.
func (s *Sim) moveToward(i int, goal protocol.WorldPos) bool {
	e, b := &s.states[i], &s.behav[i]
	speed := int64(rulesOf(e.Type).Speed)
	if speed == 0 {
		return true
	}
	goal.Z = 0
	if dist2(e.Pos, goal) <= speed*speed {
		s.place(i, goal)
		b.flags &^= bDetour
		return true
	}
	if b.flags&bDetour == 0 {
		next := stepToward(e.Pos, goal, speed)
		if s.terrain.passableAt(next) {
			s.place(i, next)
			return false
		}
		b.flags |= bDetour
	}
	via, ok := s.paths.waypoint(e.Pos, goal)
	if !ok {
		b.flags &^= bDetour
		return true
	}
	if dist2(e.Pos, via) > speed*speed {
		via = stepToward(e.Pos, via, speed)
	}
	s.place(i, via)
	return false
}

// place moves entity i to p on the ground, facing the way it went.
func (s *Sim) place(i int, p protocol.WorldPos) {
	e := &s.states[i]
	if dx, dy := int64(p.X-e.Pos.X), int64(p.Y-e.Pos.Y); dx != 0 || dy != 0 {
		e.Facing = angleOf(dx, dy)
	}
	p.Z = s.terrain.groundZ(p)
	e.Pos = p
}

// stepToward returns the point speed units from p toward goal, which is
// farther than speed away. Integer division truncates toward zero, so the
// point lies on the segment and on every platform at the same place.
func stepToward(p, goal protocol.WorldPos, speed int64) protocol.WorldPos {
	dx, dy := int64(goal.X)-int64(p.X), int64(goal.Y)-int64(p.Y)
	d := isqrt(dx*dx + dy*dy)
	if d == 0 {
		return p
	}
	return protocol.WorldPos{X: p.X + protocol.SimCoord(dx*speed/d), Y: p.Y + protocol.SimCoord(dy*speed/d)}
}
