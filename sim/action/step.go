package action

import (
	"cmp"
	"slices"
	"strconv"
)

// EventKind says what happened in an Event.
type EventKind uint8

// Event kinds.
const (
	// EventSpawn: Player's cast ActionSeq spawned projectile Entity.
	EventSpawn EventKind = 1 + iota
	// EventCastRejected: Player's cast ActionSeq was refused for Reason.
	EventCastRejected
	// EventHit: projectile Entity of Player hit Target for Value damage.
	EventHit
	// EventDeath: player entity Target died; Player scored the kill.
	EventDeath
	// EventDespawn: projectile Entity expired, struck a collider or hit a
	// player (after the EventHit): the last event of every spawned
	// projectile.
	EventDespawn
	// EventRespawn: Player's entity Target came back.
	EventRespawn
)

// Reasons a cast is rejected (Event.Value of EventCastRejected).
const (
	ReasonCooldown int16 = 1 + iota
	ReasonMana
	ReasonDead
)

// Event is a discrete result of a tick. Events are what a server publishes
// for clients to play effects from, and what maps a predicted spawn to the
// authoritative entity (EventSpawn carries the cast's ActionSeq).
type Event struct {
	Kind      EventKind
	Player    PlayerID
	Entity    EntityID
	Target    EntityID
	ActionSeq uint32
	Value     int16
}

// Step advances the world by one tick. inputs holds at most one input per
// player (later duplicates are ignored, unknown players too); a player
// without an input keeps its held movement intent, view and sprint, and
// neither jumps nor casts. The tick's events are appended to ev.
//
// Systems run in a fixed order, each over entities in ascending id order:
// respawn, movement (players), projectiles (flight and hits), actions
// (casts spawn projectiles), regeneration.
func (w *World) Step(inputs []PlayerInput, ev []Event) []Event {
	var by [256]*Input
	for i := range inputs {
		if p := inputs[i].Player; by[p] == nil {
			by[p] = &inputs[i].Input
		}
	}
	w.tick++
	ev = w.respawn(ev)
	for i := range w.entities {
		if e := &w.entities[i]; e.Kind == KindPlayer && e.Flags&FlagDead == 0 {
			w.move(e, by[e.Owner])
		}
	}
	ev = w.fly(ev)
	ev = w.cast(&by, ev)
	w.regenerate()
	return ev
}

func (w *World) respawn(ev []Event) []Event {
	for i := range w.entities {
		e := &w.entities[i]
		if e.Kind != KindPlayer || e.Flags&FlagDead == 0 {
			continue
		}
		if e.Respawn > 1 {
			e.Respawn--
			continue
		}
		w.spawn(e)
		ev = append(ev, Event{Kind: EventRespawn, Player: e.Owner, Target: e.ID})
	}
	return ev
}

// move applies a player's input (or held intent) and moves it one tick,
// X then Y, stopping an axis at a collider.
func (w *World) move(e *Entity, in *Input) {
	if in != nil {
		e.IntentX, e.IntentY = clampIntent(in.MoveX, in.MoveY)
		e.Yaw, e.Pitch = in.Yaw, max(min(in.Pitch, 16384), -16384)
		e.Flags &^= FlagSprint
		if in.Sprint {
			e.Flags |= FlagSprint
		}
		if in.Jump && e.Flags&FlagGrounded != 0 {
			e.Vel.Z = w.r.jump
			e.Flags &^= FlagGrounded
		}
	}
	speed := w.r.walk
	if e.Flags&FlagSprint != 0 {
		speed = w.r.sprint
	}
	e.Vel.X = approach(e.Vel.X, speed*Fixed(e.IntentX)/127, w.r.accel)
	e.Vel.Y = approach(e.Vel.Y, speed*Fixed(e.IntentY)/127, w.r.accel)
	if p := (Vec3{X: e.Pos.X + e.Vel.X, Y: e.Pos.Y, Z: e.Pos.Z}); !w.blocked(p, playerRadius) {
		e.Pos = p
	} else {
		e.Vel.X = 0
	}
	if p := (Vec3{X: e.Pos.X, Y: e.Pos.Y + e.Vel.Y, Z: e.Pos.Z}); !w.blocked(p, playerRadius) {
		e.Pos = p
	} else {
		e.Vel.Y = 0
	}
	if e.Flags&FlagGrounded == 0 {
		e.Pos.Z += e.Vel.Z
		e.Vel.Z -= w.r.gravity
		if e.Pos.Z <= 0 {
			e.Pos.Z, e.Vel.Z = 0, 0
			e.Flags |= FlagGrounded
		}
	}
}

// clampIntent limits the movement vector to length 127, so a diagonal is
// no faster than a straight line.
func clampIntent(x, y int8) (int8, int8) {
	x, y = max(x, -127), max(y, -127)
	n2 := int32(x)*int32(x) + int32(y)*int32(y)
	if n2 <= 127*127 {
		return x, y
	}
	n := isqrt(n2)
	return int8(int32(x) * 127 / n), int8(int32(y) * 127 / n)
}

func isqrt(v int32) int32 {
	r := int32(0)
	for (r+1)*(r+1) <= v {
		r++
	}
	return r
}

// approach moves v toward target by at most step.
func approach(v, target, step Fixed) Fixed {
	switch {
	case v < target:
		return min(v+step, target)
	case v > target:
		return max(v-step, target)
	}
	return v
}

// fly moves every projectile, expires it, and resolves its first hit.
//
// Projectiles act in cast order, (owner, action sequence), never in id
// order: a predicting client's own projectiles have provisional negative
// ids and sort before everyone's, the server's do not, and both must draw
// the same damage from the RNG in the same order. Projectiles that end
// are marked and removed only once every projectile has flown, so no
// projectile ever sees a stale copy of an entity (a target already hit
// and killed this tick is hit again by nobody).
func (w *World) fly(ev []Event) []Event {
	order := w.flying[:0]
	for i := range w.entities {
		if w.entities[i].Kind == KindProjectile {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := &w.entities[a], &w.entities[b]
		return cmp.Or(cmp.Compare(x.Owner, y.Owner), cmp.Compare(x.ActionSeq, y.ActionSeq), cmp.Compare(x.ID, y.ID))
	})
	w.flying = order
	ended := false
	for _, i := range order {
		var gone bool
		if ev, gone = w.flyOne(&w.entities[i], ev); gone {
			w.entities[i].Kind = kindEnded
			ended = true
		}
	}
	if ended {
		w.entities = slices.DeleteFunc(w.entities, func(e Entity) bool { return e.Kind == kindEnded })
	}
	return ev
}

func (w *World) flyOne(e *Entity, ev []Event) ([]Event, bool) {
	e.Pos = e.Pos.Add(e.Vel)
	if e.Timer <= 1 || w.blocked(e.Pos, projectileRadius) {
		return append(ev, Event{Kind: EventDespawn, Player: e.Owner, Entity: e.ID, ActionSeq: e.ActionSeq}), true
	}
	e.Timer--
	r2 := mul(hitRadius, hitRadius)
	for j := range w.entities {
		t := &w.entities[j]
		if t.Kind != KindPlayer || t.Owner == e.Owner || t.Flags&FlagDead != 0 {
			continue
		}
		if e.Pos.Z < t.Pos.Z || e.Pos.Z > t.Pos.Z+playerHeight || int64(e.Pos.Dist2(t.Pos)) > int64(r2) {
			continue
		}
		dmg := e.Health + int16(w.rng.Intn(6))
		t.Health -= dmg
		ev = append(ev, Event{Kind: EventHit, Player: e.Owner, Entity: e.ID, Target: t.ID, ActionSeq: e.ActionSeq, Value: dmg})
		if t.Health <= 0 {
			t.Health = 0
			t.Flags = FlagDead
			t.Vel = Vec3{}
			t.Respawn = uint16(min(w.r.RespawnTicks, 65535))
			ev = append(ev, Event{Kind: EventDeath, Player: e.Owner, Entity: e.ID, Target: t.ID, ActionSeq: e.ActionSeq})
		}
		return append(ev, Event{Kind: EventDespawn, Player: e.Owner, Entity: e.ID, ActionSeq: e.ActionSeq}), true
	}
	return ev, false
}

// cast resolves every cast request: cooldown and mana are checked here, by
// the rules, so a client can neither skip nor fake them.
func (w *World) cast(by *[256]*Input, ev []Event) []Event {
	n := len(w.entities)
	for i := range n {
		e := &w.entities[i]
		in := by[e.Owner]
		if e.Kind != KindPlayer || in == nil || !in.Cast {
			continue
		}
		reason := int16(0)
		switch {
		case e.Flags&FlagDead != 0:
			reason = ReasonDead
		case e.Timer > 0:
			reason = ReasonCooldown
		case e.Mana < w.r.CastCost:
			reason = ReasonMana
		}
		if reason != 0 {
			ev = append(ev, Event{Kind: EventCastRejected, Player: e.Owner, Entity: e.ID, ActionSeq: in.CastSeq, Value: reason})
			continue
		}
		e.Mana -= w.r.CastCost
		e.Timer = uint16(min(w.r.CastCooldown, 65535))
		e.ActionSeq = in.CastSeq
		p := w.projectile(e, in.CastSeq)
		ev = append(ev, Event{Kind: EventSpawn, Player: e.Owner, Entity: p.ID, ActionSeq: in.CastSeq})
		w.entities = append(w.entities, p)
	}
	if len(w.entities) > n {
		// Spawns were appended; provisional ids sort first.
		sortByID(w.entities)
	}
	return ev
}

func (w *World) projectile(e *Entity, seq uint32) Entity {
	yaw := e.Yaw + uint16(w.rng.Intn(512)) - 256
	dx, dy := Dir(yaw)
	off := playerRadius + projectileRadius + One/16
	p := Entity{
		Kind: KindProjectile, Owner: e.Owner, ActionSeq: seq,
		Pos:    Vec3{X: e.Pos.X + mul(dx, off), Y: e.Pos.Y + mul(dy, off), Z: e.Pos.Z + One},
		Vel:    Vec3{X: mul(dx, w.r.projSpeed), Y: mul(dy, w.r.projSpeed)},
		Yaw:    yaw,
		Health: w.r.Damage,
		Timer:  uint16(min(w.r.ProjectileLife, 65535)),
	}
	if w.provisional {
		p.ID = -EntityID(seq & 0x7fffffff)
	} else {
		p.ID = w.nextID
		w.nextID++
	}
	return p
}

func (w *World) regenerate() {
	regen := w.tick%uint64(w.r.regenEvery) == 0
	for i := range w.entities {
		e := &w.entities[i]
		if e.Kind != KindPlayer || e.Flags&FlagDead != 0 {
			continue
		}
		if e.Timer > 0 {
			e.Timer--
		}
		if regen && e.Mana < w.r.MaxMana {
			e.Mana++
		}
	}
}

func sortByID(es []Entity) {
	slices.SortFunc(es, func(a, b Entity) int { return cmp.Compare(a.ID, b.ID) })
}

func (k EventKind) String() string {
	switch k {
	case EventSpawn:
		return "spawn"
	case EventCastRejected:
		return "cast-rejected"
	case EventHit:
		return "hit"
	case EventDeath:
		return "death"
	case EventDespawn:
		return "despawn"
	case EventRespawn:
		return "respawn"
	}
	return "event(" + strconv.Itoa(int(k)) + ")"
}
