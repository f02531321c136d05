package fogauth

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tickwire/tickwire/protocol"
)

// ErrRecipient reports a StateUpdate addressed to another player.
var ErrRecipient = errors.New("fogauth: state update for another player")

// MaxUnitSpeed is the reconciler's sanity bound in SimCoord per tick (the
// seed's value; the reference game's fastest unit, the scout, moves 112):
// a position that moved farther than MaxUnitSpeed × ticks elapsed on an
// axis is snapped to instead of interpolated.
const MaxUnitSpeed protocol.SimCoord = 256

// ClientEntity is the client's copy of one entity: the last state the
// server sent, and what the renderer needs between updates.
type ClientEntity struct {
	protocol.EntityState
	// Velocity is estimated from position deltas, in SimCoord per tick.
	Velocity protocol.WorldPos
	// LastUpdateTick is the tick of the latest delta for the entity.
	LastUpdateTick uint64
	// InterpStart is the position the renderer interpolates from;
	// InterpProgress runs from 0 to 1 over one tick interval. Both are
	// rendering-only: nothing that feeds orders reads them.
	InterpStart    protocol.WorldPos
	InterpProgress float32
}

// Rendered is where to draw the entity: InterpStart to Pos by
// InterpProgress, then along Velocity for extra ticks since the last
// update (prediction). Rendering only.
func (e *ClientEntity) Rendered(extraTicks float32) (x, y, z float32) {
	t := e.InterpProgress
	lerp := func(a, b, v protocol.SimCoord) float32 {
		return float32(a) + (float32(b)-float32(a))*t + float32(v)*extraTicks
	}
	return lerp(e.InterpStart.X, e.Pos.X, e.Velocity.X), lerp(e.InterpStart.Y, e.Pos.Y, e.Velocity.Y), lerp(e.InterpStart.Z, e.Pos.Z, e.Velocity.Z)
}

// Predict is the entity's position ticks after its last update along its
// last velocity.
func (e *ClientEntity) Predict(ticks uint64) protocol.WorldPos {
	n := protocol.SimCoord(ticks)
	return protocol.WorldPos{X: e.Pos.X + e.Velocity.X*n, Y: e.Pos.Y + e.Velocity.Y*n, Z: e.Pos.Z + e.Velocity.Z*n}
}

// WorldStats counts what the reconciler applied.
type WorldStats struct {
	Enters, Updates, Leaves uint64
	Snaps                   uint64 // position updates past the sanity bound
	Unknown                 uint64 // Updates or Leaves for entities not held (ignored)
}

// PartialWorld is a fog-authoritative client's world: only the entities
// the server told it about, kept in ascending ID order. A bot plays from
// it, so from exactly what the client received (rtsgame.World shows it to
// the reference RTS's bot).
type PartialWorld struct {
	player protocol.PlayerID
	tick   uint64
	ents   []ClientEntity
	states []protocol.EntityState // scratch of Entities
	stats  WorldStats
}

// NewPartialWorld returns an empty world for player (0 for a spectator).
func NewPartialWorld(player protocol.PlayerID) *PartialWorld {
	return &PartialWorld{player: player}
}

// Apply applies one StateUpdate's deltas in order.
func (w *PartialWorld) Apply(u *StateUpdate) error {
	if u.Player != w.player {
		return fmt.Errorf("%w: %d, this client is %d", ErrRecipient, u.Player, w.player)
	}
	w.tick = max(w.tick, u.Tick)
	for i := range u.Deltas {
		w.apply(&u.Deltas[i], u.Tick)
	}
	return nil
}

func (w *PartialWorld) find(id protocol.EntityID) (int, bool) {
	lo, hi := 0, len(w.ents)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if w.ents[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(w.ents) && w.ents[lo].ID == id
}

func (w *PartialWorld) apply(d *Delta, tick uint64) {
	i, ok := w.find(d.Entity.ID)
	switch d.Kind {
	case DeltaEnter:
		e := ClientEntity{EntityState: EnterState(&d.Entity), LastUpdateTick: tick, InterpProgress: 1}
		e.InterpStart = e.Pos
		if ok {
			w.ents[i] = e
		} else {
			w.ents = slices.Insert(w.ents, i, e)
		}
		w.stats.Enters++
	case DeltaUpdate:
		if !ok {
			w.stats.Unknown++
			return
		}
		e := &w.ents[i]
		if d.Mask&FieldPosition != 0 {
			w.movePosition(e, d.Entity.Pos, tick)
		}
		CopyFields(&e.EntityState, &d.Entity, d.Mask&^FieldPosition)
		e.LastUpdateTick = max(e.LastUpdateTick, tick)
		w.stats.Updates++
	case DeltaLeave:
		if !ok {
			w.stats.Unknown++
			return
		}
		w.ents = slices.Delete(w.ents, i, i+1)
		w.stats.Leaves++
	}
}

// movePosition is the seed's apply_position_update: snap past the sanity
// bound, otherwise estimate velocity and interpolate from the old
// position.
func (w *PartialWorld) movePosition(e *ClientEntity, p protocol.WorldPos, tick uint64) {
	elapsed := protocol.SimCoord(max(tick-e.LastUpdateTick, 1))
	dx, dy := p.X-e.Pos.X, p.Y-e.Pos.Y
	bound := MaxUnitSpeed * elapsed
	if max(dx, -dx) > bound || max(dy, -dy) > bound {
		e.Pos, e.InterpStart, e.Velocity, e.InterpProgress = p, p, protocol.WorldPos{}, 1
		w.stats.Snaps++
		return
	}
	e.InterpStart, e.InterpProgress = e.Pos, 0
	e.Velocity = protocol.WorldPos{X: dx / elapsed, Y: dy / elapsed, Z: (p.Z - e.Pos.Z) / elapsed}
	e.Pos = p
}

// Interpolate advances every entity's interpolation by dt tick intervals.
// Rendering only.
func (w *PartialWorld) Interpolate(dt float32) {
	for i := range w.ents {
		w.ents[i].InterpProgress = min(w.ents[i].InterpProgress+dt, 1)
	}
}

// Reset empties the world (the client reconnects and will receive a fresh
// visibility snapshot).
func (w *PartialWorld) Reset() {
	w.ents = w.ents[:0]
}

// Player is the client's player (0 for a spectator).
func (w *PartialWorld) Player() protocol.PlayerID { return w.player }

// Tick is the newest tick received.
func (w *PartialWorld) Tick() uint64 { return w.tick }

// Len is the number of entities held.
func (w *PartialWorld) Len() int { return len(w.ents) }

// Entity returns the client's copy of an entity.
func (w *PartialWorld) Entity(id protocol.EntityID) (*ClientEntity, bool) {
	i, ok := w.find(id)
	if !ok {
		return nil, false
	}
	return &w.ents[i], true
}

// ClientEntities returns the entities held, in ascending ID order; the
// slice is valid until the next Apply.
func (w *PartialWorld) ClientEntities() []ClientEntity { return w.ents }

// Entities returns the entities' states in ascending ID order, valid until
// the next Apply.
func (w *PartialWorld) Entities() []protocol.EntityState {
	w.states = w.states[:0]
	for i := range w.ents {
		w.states = append(w.states, w.ents[i].EntityState)
	}
	return w.states
}

// Stats returns what the reconciler applied so far.
func (w *PartialWorld) Stats() WorldStats { return w.stats }
