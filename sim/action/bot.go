package action

import "github.com/tickwire/tickwire/sim"

// Bot plays one player with deterministic random inputs, deciding only
// from the World it is given: a client's bot passes its predicted world,
// so it plays from what that client has received. It wanders in straight
// runs, sprints and jumps now and then, aims at the nearest living
// opponent and casts whenever its cooldown and mana allow (and, rarely,
// when they do not, so rejections happen in normal play).
type Bot struct {
	rng          sim.SplitMix64
	moveX, moveY int8
	sprint       bool
	hold         int
	castSeq      uint32
}

// NewBot returns a bot whose choices follow seed.
func NewBot(seed uint64) *Bot { return &Bot{rng: sim.SplitMix64{S: seed}} }

// Input returns player p's input for the next tick of w.
func (b *Bot) Input(w *World, p PlayerID) Input {
	me, ok := w.Player(p)
	if !ok {
		return Input{}
	}
	if b.hold <= 0 {
		b.moveX = int8(b.rng.Intn(255)) - 127
		b.moveY = int8(b.rng.Intn(255)) - 127
		b.sprint = b.rng.Intn(3) == 0
		b.hold = 20 + int(b.rng.Intn(40))
	}
	b.hold--
	in := Input{MoveX: b.moveX, MoveY: b.moveY, Sprint: b.sprint, Yaw: me.Yaw, Pitch: me.Pitch}
	in.Jump = b.rng.Intn(90) == 0
	if t, ok := nearestOpponent(w, &me); ok {
		in.Yaw = YawTo(t.Pos.X-me.Pos.X, t.Pos.Y-me.Pos.Y)
	} else {
		in.Yaw += uint16(b.rng.Intn(1024))
	}
	ready := me.Timer == 0 && me.Mana >= w.r.CastCost && me.Flags&FlagDead == 0
	if (ready && b.rng.Intn(3) == 0) || b.rng.Intn(200) == 0 {
		b.castSeq++
		in.Cast, in.CastSeq = true, b.castSeq
	}
	return in
}

func nearestOpponent(w *World, me *Entity) (Entity, bool) {
	var best Entity
	bestD, found := int64(0), false
	for _, e := range w.Entities() {
		if e.Kind != KindPlayer || e.Owner == me.Owner || e.Flags&FlagDead != 0 {
			continue
		}
		if d := e.Pos.Dist2(me.Pos); !found || d < bestD {
			best, bestD, found = e, d, true
		}
	}
	return best, found
}
