package action

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// Box is an axis-aligned collider on the floor plane; it blocks players and
// stops projectiles at every height.
type Box struct{ MinX, MinY, MaxX, MaxY Fixed }

func (b Box) overlaps(p Vec3, r Fixed) bool {
	return p.X+r > b.MinX && p.X-r < b.MaxX && p.Y+r > b.MinY && p.Y-r < b.MaxY
}

// Config holds the rules of a match. The zero value is the standard match:
// every zero field takes the default named beside it. Two worlds must share
// a Config to exchange snapshots; its hash is part of each snapshot.
type Config struct {
	TickRate    int   // ticks per second; 60
	ArenaSize   int   // side of the square arena in units; 48
	MaxPlayers  int   // 1..255; 32
	Colliders   []Box // nil: DefaultColliders(ArenaSize)
	NoColliders bool  // an empty arena, ignoring Colliders

	WalkSpeed   Fixed // units per second; 6
	SprintSpeed Fixed // units per second; 9.5
	Accel       Fixed // units per second²; 60
	JumpSpeed   Fixed // units per second upward; 7
	Gravity     Fixed // units per second²; 20

	MaxHealth       int16 // 100
	MaxMana         int16 // 100
	ManaRegen       int16 // mana per second; 20
	CastCost        int16 // mana per cast; 25
	CastCooldown    int   // ticks between casts; TickRate/3
	ProjectileSpeed Fixed // units per second; 24
	ProjectileLife  int   // ticks; 1.5 s
	Damage          int16 // base damage; 18 (plus 0..5 from the RNG)
	RespawnTicks    int   // 2 s
}

// rules are a Config with defaults applied and speeds converted to per
// tick.
type rules struct {
	Config
	walk, sprint, accel, jump, gravity, projSpeed Fixed
	regenEvery                                    int // ticks per point of mana
	hash                                          uint64
}

const (
	playerRadius     = One * 2 / 5
	projectileRadius = One / 8
	hitRadius        = playerRadius + projectileRadius
	playerHeight     = One * 9 / 5
)

func orInt(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func orFixed(v, d Fixed) Fixed {
	if v <= 0 {
		return d
	}
	return v
}

func orI16(v, d int16) int16 {
	if v <= 0 {
		return d
	}
	return v
}

// DefaultColliders is the standard arena's layout: four pillars and two
// walls, symmetric about the centre.
func DefaultColliders(arena int) []Box {
	a := Units(arena)
	q, h := a/4, a/2
	return []Box{
		{q - One, q - One, q + One, q + One},
		{a - q - One, q - One, a - q + One, q + One},
		{q - One, a - q - One, q + One, a - q + One},
		{a - q - One, a - q - One, a - q + One, a - q + One},
		{h - Units(4), h - One/2, h - One, h + One/2},
		{h + One, h - One/2, h + Units(4), h + One/2},
	}
}

func newRules(c Config) rules {
	c.TickRate = orInt(c.TickRate, 60)
	c.ArenaSize = min(orInt(c.ArenaSize, 48), 1024)
	c.MaxPlayers = min(orInt(c.MaxPlayers, 32), 255)
	if c.NoColliders {
		c.Colliders = nil
	} else if c.Colliders == nil {
		c.Colliders = DefaultColliders(c.ArenaSize)
	}
	c.WalkSpeed = orFixed(c.WalkSpeed, Units(6))
	c.SprintSpeed = orFixed(c.SprintSpeed, One*19/2)
	c.Accel = orFixed(c.Accel, Units(60))
	c.JumpSpeed = orFixed(c.JumpSpeed, Units(7))
	c.Gravity = orFixed(c.Gravity, Units(20))
	c.MaxHealth = orI16(c.MaxHealth, 100)
	c.MaxMana = orI16(c.MaxMana, 100)
	c.ManaRegen = orI16(c.ManaRegen, 20)
	c.CastCost = orI16(c.CastCost, 25)
	c.CastCooldown = orInt(c.CastCooldown, c.TickRate/3)
	c.ProjectileSpeed = orFixed(c.ProjectileSpeed, Units(24))
	c.ProjectileLife = orInt(c.ProjectileLife, c.TickRate*3/2)
	c.Damage = orI16(c.Damage, 18)
	c.RespawnTicks = orInt(c.RespawnTicks, 2*c.TickRate)
	tr := Fixed(c.TickRate)
	r := rules{
		Config:     c,
		walk:       c.WalkSpeed / tr,
		sprint:     c.SprintSpeed / tr,
		accel:      c.Accel / tr / tr,
		jump:       c.JumpSpeed / tr,
		gravity:    c.Gravity / tr / tr,
		projSpeed:  c.ProjectileSpeed / tr,
		regenEvery: max(c.TickRate/int(c.ManaRegen), 1),
	}
	r.hash = r.digest()
	return r
}

// digest hashes every rule, so snapshots of different rules never mix.
func (r *rules) digest() uint64 {
	le := binary.LittleEndian
	b := []byte("tickwire/action rules v1")
	for _, v := range []int{r.TickRate, r.ArenaSize, r.MaxPlayers, r.CastCooldown, r.ProjectileLife, r.RespawnTicks} {
		b = le.AppendUint32(b, uint32(v))
	}
	for _, v := range []Fixed{r.WalkSpeed, r.SprintSpeed, r.Accel, r.JumpSpeed, r.Gravity, r.ProjectileSpeed} {
		b = le.AppendUint32(b, uint32(v))
	}
	for _, v := range []int16{r.MaxHealth, r.MaxMana, r.ManaRegen, r.CastCost, r.Damage} {
		b = le.AppendUint16(b, uint16(v))
	}
	for _, c := range r.Colliders {
		b = le.AppendUint32(b, uint32(c.MinX))
		b = le.AppendUint32(b, uint32(c.MinY))
		b = le.AppendUint32(b, uint32(c.MaxX))
		b = le.AppendUint32(b, uint32(c.MaxY))
	}
	return xxhash.Sum64(b)
}
