package action

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tickwire/tickwire/sim"
)

// PlayerID numbers a player, 1..MaxPlayers; 0 is no player.
type PlayerID uint8

// EntityID names an entity. The authoritative world numbers entities from
// 1 upwards and never reuses an id; a predicting client's provisional
// spawns have negative ids (see SetProvisionalSpawns).
type EntityID int32

// Kind is what an entity is.
type Kind uint8

// Entity kinds.
const (
	KindPlayer Kind = 1 + iota
	KindProjectile
	// kindEnded marks a projectile that ended during the tick being
	// stepped; it never outlives the step.
	kindEnded Kind = 0
)

func (k Kind) String() string {
	switch k {
	case KindPlayer:
		return "player"
	case KindProjectile:
		return "projectile"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Entity flags.
const (
	FlagGrounded uint8 = 1 << iota // a player standing on the floor
	FlagSprint                     // the player's held sprint intent
	FlagDead                       // a player waiting to respawn
	flagsKnown   = FlagGrounded | FlagSprint | FlagDead
)

// Entity is one player or projectile. Every field is state: it is hashed,
// snapshotted and encoded in one EntityRecordSize record.
type Entity struct {
	ID    EntityID
	Kind  Kind
	Owner PlayerID // the player itself, or the player who cast the projectile
	Pos   Vec3
	Vel   Vec3 // units per tick
	Yaw   uint16
	Pitch int16
	// Health and Mana of a player; a projectile's Health is its damage.
	Health int16
	Mana   int16
	// Timer is a player's cast cooldown or a projectile's remaining life,
	// in ticks; Respawn counts a dead player's ticks until respawn.
	Timer   uint16
	Respawn uint16
	// IntentX and IntentY are the player's held movement intent, kept
	// until the next input: a tick without an input repeats it.
	IntentX, IntentY int8
	Flags            uint8
	// ActionSeq is the action sequence of the player's last accepted cast,
	// or of the cast that spawned a projectile.
	ActionSeq uint32
}

// Input is one player's intent for one tick.
type Input struct {
	MoveX, MoveY int8 // -127..127 each; the vector is clamped to length 127
	Jump, Sprint bool
	Yaw          uint16 // view direction, 65536 per turn
	Pitch        int16
	// Cast asks for a projectile along Yaw; CastSeq is the action
	// sequence the cast is known by in events (it must be nonzero).
	Cast    bool
	CastSeq uint32
}

// PlayerInput is an Input addressed to a player.
type PlayerInput struct {
	Player PlayerID
	Input  Input
}

// Errors.
var (
	ErrInvalidSnapshot = errors.New("action: invalid snapshot")
	ErrPlayer          = errors.New("action: player id out of range or already present")
)

// World is the state of one match. It is not safe for concurrent use.
type World struct {
	r        rules
	seed     uint64
	tick     uint64
	rng      sim.SplitMix64
	nextID   EntityID
	entities []Entity // ascending ID; provisional (negative) ids first

	provisional bool
	scratch     []byte
	flying      []int32 // the projectiles of the tick being stepped, in cast order
}

// New returns a world with no players at tick 0.
func New(cfg Config, seed uint64) *World {
	return &World{r: newRules(cfg), seed: seed, rng: sim.SplitMix64{S: seed}, nextID: 1}
}

// Config returns the rules with defaults applied.
func (w *World) Config() Config { return w.r.Config }

// Tick is the number of ticks stepped.
func (w *World) Tick() uint64 { return w.tick }

// RNGState is the generator's whole state.
func (w *World) RNGState() uint64 { return w.rng.S }

// Entities returns the entities in ascending id order. The slice aliases
// the world and is valid until the next Step, Join, Leave or Restore.
func (w *World) Entities() []Entity { return w.entities }

// Entity returns the entity with the given id.
func (w *World) Entity(id EntityID) (Entity, bool) {
	if i, ok := w.find(id); ok {
		return w.entities[i], true
	}
	return Entity{}, false
}

// Player returns player p's entity.
func (w *World) Player(p PlayerID) (Entity, bool) {
	for i := range w.entities {
		if e := &w.entities[i]; e.Kind == KindPlayer && e.Owner == p {
			return *e, true
		}
	}
	return Entity{}, false
}

func (w *World) find(id EntityID) (int, bool) {
	return slices.BinarySearchFunc(w.entities, id, func(e Entity, id EntityID) int {
		return int(e.ID) - int(id)
	})
}

// SetProvisionalSpawns makes later casts spawn projectiles with the
// provisional id -CastSeq instead of the next authoritative id, leaving
// the id counter alone. A predicting client turns it on so its predicted
// spawns never collide with ids the server hands out, and a replayed cast
// gets the same provisional id every time. It is not part of the state.
func (w *World) SetProvisionalSpawns(on bool) { w.provisional = on }

// Join adds player p at a spawn point the RNG picks.
func (w *World) Join(p PlayerID) (EntityID, error) {
	if p == 0 || int(p) > w.r.MaxPlayers {
		return 0, ErrPlayer
	}
	if _, ok := w.Player(p); ok {
		return 0, ErrPlayer
	}
	e := Entity{ID: w.nextID, Kind: KindPlayer, Owner: p}
	w.nextID++
	w.spawn(&e)
	w.insert(e)
	return e.ID, nil
}

// Leave removes player p; its projectiles fly on.
func (w *World) Leave(p PlayerID) {
	w.entities = slices.DeleteFunc(w.entities, func(e Entity) bool {
		return e.Kind == KindPlayer && e.Owner == p
	})
}

func (w *World) insert(e Entity) {
	i, _ := w.find(e.ID)
	w.entities = slices.Insert(w.entities, i, e)
}

// spawn puts a player, alive and rested, at a free random point.
func (w *World) spawn(e *Entity) {
	a := Units(w.r.ArenaSize)
	for range 16 {
		e.Pos = Vec3{X: One + Fixed(w.rng.Intn(uint64(a-2*One))), Y: One + Fixed(w.rng.Intn(uint64(a-2*One)))}
		if !w.blocked(e.Pos, playerRadius) {
			break
		}
	}
	if w.blocked(e.Pos, playerRadius) {
		e.Pos = Vec3{X: One, Y: One}
	}
	e.Vel = Vec3{}
	e.Health, e.Mana = w.r.MaxHealth, w.r.MaxMana
	e.Timer, e.Respawn = 0, 0
	e.IntentX, e.IntentY = 0, 0
	e.Flags = FlagGrounded
}

// blocked reports whether a circle of radius r at p leaves the arena or
// overlaps a collider.
func (w *World) blocked(p Vec3, r Fixed) bool {
	a := Units(w.r.ArenaSize)
	if p.X-r < 0 || p.Y-r < 0 || p.X+r > a || p.Y+r > a {
		return true
	}
	for _, c := range w.r.Colliders {
		if c.overlaps(p, r) {
			return true
		}
	}
	return false
}
