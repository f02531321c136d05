package sim

import "github.com/tickwire/tickwire/protocol"

// step advances the world by one tick after the orders were applied:
//
//  1. count units per player and index armed targets in the spatial grid;
//  2. update every entity in ID order (construction, production, target
//     upkeep and acquisition, firing, movement, husk decay);
//  3. remove destroyed entities, leaving husks where tanks died;
//  4. pay income.
//
// Entities spawned during the tick act from the next tick on.
func (s *Sim) step() {
	s.census()
	s.index.Rebuild(s.states, isTargetable)
	for i, n := 0, len(s.states); i < n; i++ {
		if s.states[i].Health == 0 {
			continue
		}
		switch rulesOf(s.states[i].Type).Category {
		case CategoryUnit:
			s.updateUnit(i)
		case CategoryStructure:
			s.updateStructure(i)
		case CategoryDecoration:
			if s.states[i].Type == TypeHusk {
				s.states[i].Health--
			}
		}
	}
	s.removeDead()
	for p := 1; p <= s.players; p++ {
		if s.buildings[p] > 0 {
			s.credits[p-1] = min(s.credits[p-1]+s.cfg.IncomePerTick, maxCredits)
		}
	}
	s.tick++
}

func isTargetable(e *EntityState) bool { return e.Owner != Neutral }

// census counts, per player, units (alive or being produced) and structures.
func (s *Sim) census() {
	clear(s.units)
	clear(s.buildings)
	for i := range s.states {
		e := &s.states[i]
		switch r := rulesOf(e.Type); r.Category {
		case CategoryUnit:
			s.units[e.Owner]++
		case CategoryStructure:
			s.buildings[e.Owner]++
			if r.Produces != TypeNone && s.behav[i].progress > 0 {
				s.units[e.Owner]++
			}
		}
	}
}

func (s *Sim) updateUnit(i int) {
	e, b := &s.states[i], &s.behav[i]
	if b.cooldown > 0 {
		b.cooldown--
	}
	if s.fight(i) {
		return
	}
	switch b.mode {
	case modeMove, modeAttackMove:
		if s.moveToward(i, b.goal) {
			b.mode = modeIdle
			e.Anim = AnimIdle
		} else {
			e.Anim = AnimMoving
		}
	default:
		b.mode = modeIdle
		e.Anim = AnimIdle
	}
}

// fight keeps, finds and engages a target; it reports whether entity i spent
// its tick on combat (firing, aiming or closing in).
func (s *Sim) fight(i int) bool {
	e, b := &s.states[i], &s.behav[i]
	r := rulesOf(e.Type)
	if r.Range == 0 || b.mode == modeMove {
		e.Target = 0
		return false
	}
	j := -1
	if e.Target != 0 {
		if k, ok := s.aliveSlot(e.Target); ok && (b.mode == modeAttack || dist2(e.Pos, s.states[k].Pos) <= sq(r.Sight)) && s.sees(e.Owner, k) {
			j = k
		} else {
			e.Target = 0
			if b.mode == modeAttack {
				b.mode = modeIdle
			}
		}
	}
	if j < 0 && (uint64(e.ID)+s.tick)%acquireEvery == 0 {
		reach := r.Sight
		if r.Speed == 0 {
			reach = r.Range
		}
		j = s.acquire(i, reach)
	}
	if j < 0 {
		return false
	}
	t := &s.states[j]
	e.Target = t.ID
	if dist2(e.Pos, t.Pos) <= sq(r.Range) {
		e.Facing = angleOf(int64(t.Pos.X-e.Pos.X), int64(t.Pos.Y-e.Pos.Y))
		e.Anim = AnimAttacking
		if b.cooldown == 0 {
			s.fire(i, j)
		}
		return true
	}
	if r.Speed == 0 {
		e.Target = 0
		return false
	}
	s.moveToward(i, t.Pos)
	e.Anim = AnimMoving
	return true
}

// acquire returns the slot of the nearest living enemy within reach of
// entity i (ties go to the lower ID) that its owner sees (see
// SetTargetFilter), or -1. Entities destroyed earlier in the tick are
// still indexed, so a hit on one falls back to a full check.
func (s *Sim) acquire(i int, reach protocol.SimCoord) int {
	e := &s.states[i]
	j := s.index.nearestOther(e.Pos, reach, e.Owner)
	if j < 0 || (s.states[j].Health > 0 && s.sees(e.Owner, j)) {
		return j
	}
	s.query = s.index.Query(e.Pos, reach, s.query)
	best, bestD := -1, int64(0)
	for _, k := range s.query {
		c := &s.states[k]
		if c.Owner == e.Owner || c.Health == 0 || !s.sees(e.Owner, int(k)) {
			continue
		}
		d := dist2(e.Pos, c.Pos)
		if best < 0 || d < bestD || (d == bestD && c.ID < s.states[best].ID) {
			best, bestD = int(k), d
		}
	}
	return best
}

// fire resolves one shot of entity i at entity j with the simulation's RNG.
func (s *Sim) fire(i, j int) {
	e, b, t := &s.states[i], &s.behav[i], &s.states[j]
	r := rulesOf(e.Type)
	b.cooldown = r.Cooldown
	if s.rng.intn(100) < missChancePercent {
		return
	}
	dmg := uint32(r.Damage) + s.rng.intn(uint32(r.Spread)+1)
	dmg = dmg * (10 + uint32(e.Veterancy)) / 10
	if dmg < uint32(t.Health) {
		t.Health -= uint16(dmg)
		return
	}
	t.Health = 0
	if b.kills < 0xffff {
		b.kills++
	}
	for e.Veterancy < MaxVeterancy && b.kills >= veterancyKills[e.Veterancy+1] {
		e.Veterancy++
	}
}

func (s *Sim) updateStructure(i int) {
	e, b := &s.states[i], &s.behav[i]
	r := rulesOf(e.Type)
	if e.Flags&FlagUnderConstruction != 0 {
		grow := max(uint32(r.HealthMax)/uint32(r.BuildTime), 1)
		if uint32(e.Health)+grow >= uint32(e.HealthMax) {
			e.Health = e.HealthMax
			e.Flags &^= FlagUnderConstruction
			e.Anim = AnimIdle
		} else {
			e.Health += uint16(grow)
		}
		return
	}
	if b.cooldown > 0 {
		b.cooldown--
	}
	if r.Range > 0 && !s.fight(i) {
		e.Anim = AnimIdle
	}
	if r.Produces != TypeNone {
		s.produce(i) // last: spawning may move the entity slices
	}
}

// produce runs a production structure: start a unit when the player can
// pay and is under the unit limit, count down, then spawn it.
func (s *Sim) produce(i int) {
	e, b := &s.states[i], &s.behav[i]
	unit := s.nextProduct(i)
	if b.progress == 0 {
		cost := rulesOf(unit).Cost
		if int(s.units[e.Owner]) >= s.cfg.MaxUnitsPerPlayer || s.credits[e.Owner-1] < cost {
			e.Anim = AnimIdle
			return
		}
		s.credits[e.Owner-1] -= cost
		s.units[e.Owner]++
		b.progress = rulesOf(unit).BuildTime
		e.Anim = AnimProducing
		return
	}
	b.progress--
	if b.progress > 0 {
		return
	}
	e.Anim = AnimIdle
	b.produced++
	owner, at, rally, hasRally := e.Owner, e.Pos, b.goal, b.flags&bRally != 0
	// Spawn next to the building, scattered by the simulation's RNG.
	p := protocol.WorldPos{
		X: at.X + protocol.SimCoord(s.rng.intn(1537)) - 768,
		Y: at.Y + protocol.SimCoord(s.rng.intn(1537)) - 768,
	}
	if !s.terrain.passableAt(p) {
		p = at
	}
	k := s.spawn(unit, owner, p) // e and b are stale from here on
	s.states[k].Facing = WAngle(s.rng.intn(uint32(FullTurn)))
	if hasRally {
		s.behav[k].mode = modeAttackMove
		s.behav[k].goal = rally
	}
}

func (s *Sim) nextProduct(i int) EntityType {
	r := rulesOf(s.states[i].Type)
	if r.Produces == TypeInfantry && s.behav[i].produced%scoutEvery == scoutEvery-1 {
		return TypeScout
	}
	return r.Produces
}

// removeDead compacts away entities with no health left. A destroyed tank
// leaves a burning husk with the probability of the rules.
func (s *Sim) removeDead() {
	s.husks = s.husks[:0]
	n := 0
	for i := range s.states {
		e := &s.states[i]
		if e.Health == 0 {
			if e.Type == TypeTank && s.rng.intn(100) < huskChancePercent {
				s.husks = append(s.husks, e.Pos)
			}
			continue
		}
		s.states[n], s.behav[n] = s.states[i], s.behav[i]
		n++
	}
	clear(s.states[n:])
	clear(s.behav[n:])
	s.states, s.behav = s.states[:n], s.behav[:n]
	for _, p := range s.husks {
		s.spawn(TypeHusk, Neutral, p)
	}
}

func sq(v protocol.SimCoord) int64 { return int64(v) * int64(v) }
