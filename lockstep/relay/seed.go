package relay

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/tickwire/tickwire/lockstep/msg"
	"time"
)

// seedExchange is the commit-reveal game seed: every player commits to
// SHA-256(contribution || nonce), the relay broadcasts the commitments once
// all are in, every player reveals, and the seed is the XOR of the
// contributions (its first eight bytes, little-endian). No player can steer
// it unless all the others collude.
type seedExchange struct {
	deadline     time.Duration
	committed    []bool
	revealed     []bool
	commitments  [][32]byte
	contribution [32]byte // XOR of the reveals so far
}

func newSeedExchange(players int) seedExchange {
	return seedExchange{committed: make([]bool, players), revealed: make([]bool, players),
		commitments: make([][32]byte, players)}
}

// Commitment returns SHA-256(contribution || nonce), the value a client
// commits to.
func Commitment(contribution [32]byte, nonce [16]byte) [32]byte {
	h := sha256.New()
	h.Write(contribution[:])
	h.Write(nonce[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// onCommit accepts a commitment, during calibration too (clients commit
// while loading).
func (c *Core) onCommit(p *player, m *msg.SeedCommit) error {
	s := &c.seed
	if c.phase != PhaseCalibrating && c.phase != PhaseCommitting {
		return fmt.Errorf("%w: SeedCommit while %v", ErrPhase, c.phase)
	}
	if s.committed[p.index] {
		return fmt.Errorf("%w: seed commitment", ErrDuplicate)
	}
	s.committed[p.index], s.commitments[p.index] = true, m.Commitment
	if c.phase == PhaseCommitting {
		c.checkCommits()
	}
	return nil
}

// onReveal checks a reveal against its commitment; a false reveal removes
// the player like a missing one.
func (c *Core) onReveal(p *player, m *msg.SeedReveal) error {
	s := &c.seed
	if c.phase != PhaseRevealing {
		return fmt.Errorf("%w: SeedReveal while %v", ErrPhase, c.phase)
	}
	if s.revealed[p.index] {
		return fmt.Errorf("%w: seed reveal", ErrDuplicate)
	}
	if Commitment(m.Contribution, m.Nonce) != s.commitments[p.index] {
		c.scheduleRemoval(p, msg.ReasonNoReveal)
		return ErrBadReveal
	}
	s.revealed[p.index] = true
	for i, b := range m.Contribution {
		s.contribution[i] ^= b
	}
	c.checkReveals()
	return nil
}

// startSeed opens the commit phase after calibration.
func (c *Core) startSeed() {
	c.phase = PhaseCommitting
	c.seed.deadline = c.now + c.cfg.SeedTimeout
	c.checkCommits()
}

// checkCommits broadcasts the commitments once every active player has
// committed and opens the reveal phase.
func (c *Core) checkCommits() {
	all := true
	c.active(func(p *player) { all = all && c.seed.committed[p.index] })
	if !all || c.phase != PhaseCommitting {
		return
	}
	m := &msg.SeedCommitments{}
	c.active(func(p *player) {
		m.Commitments = append(m.Commitments, msg.Commitment{Player: p.state.ID, Commitment: c.seed.commitments[p.index]})
	})
	c.broadcast(m)
	c.phase = PhaseRevealing
	c.seed.deadline = c.now + c.cfg.SeedTimeout
}

// checkReveals announces the seed once every active player has revealed,
// and starts play.
func (c *Core) checkReveals() {
	all := true
	c.active(func(p *player) { all = all && c.seed.revealed[p.index] })
	if !all || c.phase != PhaseRevealing {
		return
	}
	seed := binary.LittleEndian.Uint64(c.seed.contribution[:8])
	c.gameSeed = seed
	c.startPlay()
	c.broadcast(&msg.SeedResult{Seed: seed, StartUs: durUs(c.timeline.start)})
	c.emit(SeedAgreed{Seed: seed, Start: c.timeline.start})
}

// seedTimeout removes the players the current phase is still waiting for.
func (c *Core) seedTimeout() {
	c.active(func(p *player) {
		switch {
		case c.phase == PhaseCommitting && !c.seed.committed[p.index]:
			c.scheduleRemoval(p, msg.ReasonNoCommit)
		case c.phase == PhaseRevealing && !c.seed.revealed[p.index]:
			c.scheduleRemoval(p, msg.ReasonNoReveal)
		}
	})
}
