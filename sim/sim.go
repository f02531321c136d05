package sim

import (
	"fmt"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/tickwire/tickwire/protocol"
)

// mode is what an entity is doing because of the last order it received.
type mode uint8

const (
	modeIdle       mode = iota // stand; armed units engage enemies in sight
	modeMove                   // go to goal, ignoring enemies
	modeAttackMove             // go to goal, engaging enemies on the way
	modeAttack                 // attack the entity in Target until it dies
	numModes
)

// Bits of behaviour.flags.
const (
	bDetour     uint8 = 1 << iota // following the flow field, not a straight line
	bRally                        // goal holds a rally point (production structures)
	knownBFlags = bDetour | bRally
)

// behaviour is the part of an entity's state that only the simulation reads:
// its current order, weapon cooldown, production progress. It is hashed and
// snapshotted with the public EntityState.
type behaviour struct {
	goal     protocol.WorldPos // move / attack-move destination or rally point; Z unused
	kills    uint16
	progress uint16 // production countdown
	mode     mode
	flags    uint8
	cooldown uint8
	produced uint8 // units produced, modulo 256 (selects the next unit type)
}

// Sim is the reference deterministic simulation: a small RTS on a grid map.
// Given the same MapData, Config, seed and TickOrders, every Sim on every
// platform reaches bit-identical states, which StateHash summarises.
//
// A Sim is not safe for concurrent use.
type Sim struct {
	// Authoritative state: hashed and snapshotted.
	tick    uint64
	rng     rng
	seed    uint64
	nextID  protocol.EntityID
	credits []int32 // index player-1
	states  []EntityState
	behav   []behaviour // parallel to states; both sorted by ID

	// Static for the match.
	cfg     Config
	cfgHash uint64
	terrain *Terrain
	mapHash uint64
	players int

	// Derived caches and scratch space: never affect results.
	index     *SpatialIndex
	paths     pathCache
	chrono    []*protocol.TimestampedOrder
	query     []int32
	units     []int32 // per owner: units alive or in production
	buildings []int32 // per owner: structures
	husks     []protocol.WorldPos
	hasher    stateHasher

	// A rule of the match set by its embedder, never snapshotted.
	filter TargetFilter
}

// New starts a match at tick 0 from the map, the rules and the game seed.
// Entities of mapData.Entities get ids 1, 2, ... in order.
func New(mapData MapData, config Config, seed uint64) (*Sim, error) {
	t, err := newTerrain(&mapData)
	if err != nil {
		return nil, err
	}
	if mapData.Players < 1 || mapData.Players > MaxPlayers {
		return nil, fmt.Errorf("%w: %d players", ErrInvalidMap, mapData.Players)
	}
	cfg := config.WithDefaults()
	s := &Sim{
		seed:    seed,
		rng:     newRNG(seed),
		nextID:  1,
		credits: make([]int32, mapData.Players),
		cfg:     cfg,
		cfgHash: cfg.hash(),
		terrain: t,
		mapHash: hashMap(t, mapData.Players),
		players: mapData.Players,
	}
	s.initDerived()
	for i := range s.credits {
		s.credits[i] = cfg.StartingCredits
	}
	for i, p := range mapData.Entities {
		if !validType(p.Type) || !ownerFits(p.Type, p.Owner, s.players) {
			return nil, fmt.Errorf("%w: placement %d: type %d owned by %d", ErrInvalidMap, i, p.Type, p.Owner)
		}
		if !t.Contains(p.Pos) || (rulesOf(p.Type).Category != CategoryDecoration && !t.passableAt(p.Pos)) {
			return nil, fmt.Errorf("%w: placement %d at %v is off the map or blocked", ErrInvalidMap, i, p.Pos)
		}
		s.spawn(p.Type, p.Owner, p.Pos)
	}
	return s, nil
}

func (s *Sim) initDerived() {
	s.index = NewSpatialIndex(s.terrain, 4)
	s.paths = newPathCache(s.terrain)
	s.units = make([]int32, s.players+1)
	s.buildings = make([]int32, s.players+1)
	s.hasher.init(s.players)
}

// hashMap identifies a map in snapshots.
func hashMap(t *Terrain, players int) uint64 {
	d := xxhash.New()
	var hdr [6]byte
	hdr[0], hdr[1] = byte(t.width), byte(t.width>>8)
	hdr[2], hdr[3] = byte(t.height), byte(t.height>>8)
	hdr[4], hdr[5] = byte(players), byte(players>>8)
	d.Write(hdr[:])
	cells := make([]byte, len(t.cells))
	for i, c := range t.cells {
		cells[i] = byte(c)
	}
	d.Write(cells)
	return d.Sum64()
}

// spawn appends a new entity with full health and returns its slot.
func (s *Sim) spawn(typ EntityType, owner protocol.PlayerID, pos protocol.WorldPos) int {
	r := rulesOf(typ)
	pos.Z = s.terrain.groundZ(pos)
	s.states = append(s.states, EntityState{
		ID:        s.nextID,
		Type:      typ,
		Owner:     owner,
		Pos:       pos,
		Health:    r.HealthMax,
		HealthMax: r.HealthMax,
	})
	s.behav = append(s.behav, behaviour{})
	s.nextID++
	return len(s.states) - 1
}

// Tick is the number of ticks simulated so far; the next ApplyTick must
// carry this tick number.
func (s *Sim) Tick() uint64 { return s.tick }

// Seed is the game seed the match was started with.
func (s *Sim) Seed() uint64 { return s.seed }

// RNGState is the deterministic RNG's state: the cheap per-tick sync check
// of the desync-detection design (any divergence soon reaches it).
func (s *Sim) RNGState() uint64 { return s.rng.state }

// Players is the number of players; they are numbered 1..Players.
func (s *Sim) Players() int { return s.players }

// Config returns the match's rules with defaults applied.
func (s *Sim) Config() Config { return s.cfg }

// Credits returns a player's credits, or 0 for an unknown player.
func (s *Sim) Credits(p protocol.PlayerID) int32 {
	if p < 1 || int(p) > s.players {
		return 0
	}
	return s.credits[p-1]
}

// Terrain returns the static map.
func (s *Sim) Terrain() *Terrain { return s.terrain }

// Entities returns every entity in ascending ID order. The slice is the
// simulation's own storage, valid until the next ApplyTick or Restore;
// callers must not modify it.
func (s *Sim) Entities() []EntityState { return s.states }

// EntityState returns the entity with the given id.
func (s *Sim) EntityState(id protocol.EntityID) (EntityState, bool) {
	i, ok := s.slotOf(id)
	if !ok {
		return EntityState{}, false
	}
	return s.states[i], true
}

// SightSources returns the points player sees from, in entity ID order.
func (s *Sim) SightSources(player protocol.PlayerID) []SightSource {
	return s.AppendSightSources(nil, player)
}

// AppendSightSources appends player's sight sources to dst and returns it.
func (s *Sim) AppendSightSources(dst []SightSource, player protocol.PlayerID) []SightSource {
	for i := range s.states {
		e := &s.states[i]
		if e.Owner != player {
			continue
		}
		if r := rulesOf(e.Type); r.Sight > 0 {
			dst = append(dst, SightSource{Pos: e.Pos, Range: r.Sight})
		}
	}
	return dst
}

// AllSightSources lists every player's sight sources in one pass over the
// entities: dst[p] becomes what AppendSightSources(dst[p][:0], p) returns,
// for p in 1..Players (dst[0] stays empty). It reuses dst's storage.
func (s *Sim) AllSightSources(dst [][]SightSource) [][]SightSource {
	for len(dst) <= s.Players() {
		dst = append(dst, nil)
	}
	for p := range dst {
		dst[p] = dst[p][:0]
	}
	for i := range s.states {
		e := &s.states[i]
		if e.Owner == 0 || int(e.Owner) >= len(dst) {
			continue
		}
		if r := rulesOf(e.Type); r.Sight > 0 {
			dst[e.Owner] = append(dst[e.Owner], SightSource{Pos: e.Pos, Range: r.Sight})
		}
	}
	return dst
}

func (s *Sim) slotOf(id protocol.EntityID) (int, bool) {
	return slices.BinarySearchFunc(s.states, id, func(e EntityState, id protocol.EntityID) int {
		switch {
		case e.ID < id:
			return -1
		case e.ID > id:
			return 1
		}
		return 0
	})
}

// ApplyTick applies one tick's orders in chronological order (sub-tick
// time, then player), ignoring invalid ones, and then advances the
// simulation by one tick. t.Tick must equal Tick(); otherwise nothing
// happens and the error wraps ErrTickSequence.
func (s *Sim) ApplyTick(t protocol.TickOrders) error { return s.applyTick(t, nil) }

func (s *Sim) applyTick(t protocol.TickOrders, refused OrderRefused) error {
	if t.Tick != s.tick {
		return fmt.Errorf("%w: got tick %d, want %d", ErrTickSequence, t.Tick, s.tick)
	}
	s.chrono = t.Chronological(s.chrono)
	for _, o := range s.chrono {
		switch v := s.ValidateOrder(o.Player, o.Order); {
		case v == Valid:
			s.apply(o.Player, o.Order)
		case refused != nil:
			refused(o, v)
		}
	}
	clear(s.chrono) // keep no pointers into the caller's orders
	s.chrono = s.chrono[:0]
	s.step()
	return nil
}

// aliveSlot is slotOf for entities not destroyed earlier in this tick.
func (s *Sim) aliveSlot(id protocol.EntityID) (int, bool) {
	i, ok := s.slotOf(id)
	return i, ok && s.states[i].Health > 0
}
