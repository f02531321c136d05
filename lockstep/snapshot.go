package lockstep

import (
	"crypto/sha256"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// Restorer is a Simulation that saves and loads its whole state: a
// donor's snapshot (Snapshotter) for a rejoining player, which the
// rejoining player loads. Restore must leave the state unchanged on error.
type Restorer interface {
	Snapshotter
	Restore(b []byte) error
}

// SnapshotExchange is a NetworkModel that moves snapshots between game
// loops (RelayClient): GameLoop donates one when the relay asks (or, as a
// witness, its digest), and loads, after checking it against the
// witnesses' agreed digest and the players' agreed hash, the one it
// receives when it rejoins or observes.
type SnapshotExchange interface {
	// SnapshotWanted reports whether the relay asked for the state after
	// tick, which has just been applied, or for its digest.
	SnapshotWanted(tick uint64) bool
	// DonateSnapshot sends the state after tick, or its digest, as the
	// relay asked.
	DonateSnapshot(tick uint64, data []byte)
	// ReceivedSnapshot returns a donor's snapshot of tick and what the
	// others agreed for that tick, once all of it is in.
	ReceivedSnapshot() (tick uint64, data []byte, agreed Agreed, ok bool)
	// SnapshotChecked reports whether the snapshot of tick was loaded
	// (it restored and its state hash is the agreed one).
	SnapshotChecked(tick uint64, loaded bool)
}

// Agreed is what the other players agreed a snapshot of a tick must be:
// the SHA-256 of its bytes, reported by a strict majority of the
// witnesses (the players neither donor nor recipient), and the sync hash a
// strict majority of the active players reported. The digest is the
// proof: a 64-bit hash can be matched by a forged state.
type Agreed struct {
	Digest [msg.DigestSize]byte
	Hash   uint64
}

// CatchupConfig paces the catch-up of a rejoining client, as the seed
// design's CatchupConfig: of each render frame, SimBudgetPct percent goes
// to simulating ticks and the rest to rendering, and at most
// MaxTicksPerFrame ticks run per frame, so the player sees a fast-forward
// instead of a frozen screen. The zero value is 80/20 and 30 ticks.
type CatchupConfig struct {
	SimBudgetPct     uint8 // [80]
	RenderBudgetPct  uint8 // [20]; informational: the rest of the frame
	MaxTicksPerFrame uint32
	// Frame is the render frame's length [1/60 s].
	Frame time.Duration
}

// Defaults of CatchupConfig.
const (
	DefaultSimBudgetPct     = 80
	DefaultRenderBudgetPct  = 20
	DefaultMaxTicksPerFrame = 30
	DefaultCatchupFrame     = time.Second / 60
)

func (c CatchupConfig) withDefaults() CatchupConfig {
	if c.SimBudgetPct == 0 || c.SimBudgetPct > 100 {
		c.SimBudgetPct, c.RenderBudgetPct = DefaultSimBudgetPct, DefaultRenderBudgetPct
	}
	if c.MaxTicksPerFrame == 0 {
		c.MaxTicksPerFrame = DefaultMaxTicksPerFrame
	}
	if c.Frame <= 0 {
		c.Frame = DefaultCatchupFrame
	}
	return c
}

// SimBudget is the part of a frame catch-up ticks may take.
func (c CatchupConfig) SimBudget() time.Duration {
	c = c.withDefaults()
	return c.Frame * time.Duration(c.SimBudgetPct) / 100
}

// more reports whether a frame that has run ticks ticks in elapsed may
// run one more.
func (c CatchupConfig) more(ticks int, elapsed time.Duration) bool {
	c = c.withDefaults()
	return uint32(ticks) < c.MaxTicksPerFrame && (ticks == 0 || elapsed < c.SimBudget())
}

// snapshotStep loads a received snapshot if one is in: its bytes must be
// the witnesses' agreed digest, and the loop's simulation restores it and
// must hash to the agreed value, else it is rejected (and the state put
// back), and the relay tries another donor.
func (g *GameLoop) snapshotStep(x SnapshotExchange) {
	tick, data, agreed, ok := x.ReceivedSnapshot()
	if !ok {
		return
	}
	s, can := g.Sim.(Restorer)
	if !can || sha256.Sum256(data) != agreed.Digest {
		if can {
			g.Rejected++
		}
		x.SnapshotChecked(tick, false)
		return
	}
	before := s.Snapshot()
	if err := s.Restore(data); err != nil || g.Sim.StateHash() != agreed.Hash {
		if err == nil {
			_ = s.Restore(before) // a state it produced itself restores
		}
		g.Rejected++
		x.SnapshotChecked(tick, false)
		return
	}
	g.applied, g.next, g.inputAt = tick+1, tick+1, tick+1
	g.Loaded = true
	x.SnapshotChecked(tick, true)
}

// donate sends the state after tick if the relay asked for it.
func (g *GameLoop) donate(x SnapshotExchange, tick uint64) {
	if s, ok := g.Sim.(Snapshotter); ok && x.SnapshotWanted(tick) {
		if b := s.Snapshot(); len(b) > 0 {
			x.DonateSnapshot(tick, b)
		}
	}
}
