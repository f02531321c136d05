package lockstepbot

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/tickwire/tickwire/internal/atomicfile"
	"github.com/tickwire/tickwire/lockstep/relay"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// Fault is a desync drill: bot Bot (of this process, 0-based) corrupts
// one field of one entity of its simulation after applying tick At, so
// its state hash parts from the others' and the relay's desync walk must
// find it.
type Fault struct {
	Bot int
	At  uint64
	// Entity is the entity to corrupt; 0 picks the bot's own first
	// structure (or its first entity, or the first entity at all).
	Entity protocol.EntityID
	// Field is one of sim.FaultFields; "" is "health".
	Field string
}

// InjectedDesync is what a Fault did, in the bot's report.
type InjectedDesync struct {
	Tick   uint64            `json:"tick"`
	Entity protocol.EntityID `json:"entity"`
	Field  string            `json:"field"`
}

// refGame is the reference RTS as a bot plays it: a sim.Sim that answers
// the relay's desync walk, with a fault to inject if the bot has one.
type refGame struct {
	*sim.Sim
	player   protocol.PlayerID
	fault    *Fault
	injected *InjectedDesync
}

// ApplyTick applies the tick, then the fault if it is due.
func (g *refGame) ApplyTick(t protocol.TickOrders) error {
	if err := g.Sim.ApplyTick(t); err != nil {
		return err
	}
	if g.fault == nil || t.Tick != g.fault.At {
		return nil
	}
	id := g.fault.Entity
	if id == 0 {
		id = g.pickEntity()
	}
	field := g.fault.Field
	if field == "" {
		field = "health"
	}
	if err := g.InjectFault(id, field); err != nil {
		return fmt.Errorf("inject desync: %w", err)
	}
	g.injected = &InjectedDesync{Tick: t.Tick, Entity: id, Field: field}
	return nil
}

// pickEntity is the bot's own first structure, else its first entity,
// else the first entity.
func (g *refGame) pickEntity() protocol.EntityID {
	ents := g.Entities()
	var own protocol.EntityID
	for i := range ents {
		e := &ents[i]
		if e.Owner != g.player {
			continue
		}
		if sim.CategoryOf(e) == sim.CategoryStructure {
			return e.ID
		}
		if own == 0 {
			own = e.ID
		}
	}
	if own == 0 && len(ents) > 0 {
		own = ents[0].ID
	}
	return own
}

// CaptureDesync implements lockstep.Inspectable.
func (g *refGame) CaptureDesync() lockstep.DesyncCapture {
	t := g.MerkleTree()
	return &simCapture{nodes: t.Nodes(), leaves: t.Leaves(), rng: g.RNGState(), snapshot: g.Snapshot()}
}

// simCapture is a sync tick's state: the Merkle tree and a snapshot the
// leaves are read from when the walk asks.
type simCapture struct {
	nodes    []uint64
	leaves   int
	rng      uint64
	snapshot []byte
}

func (c *simCapture) Tree() ([]uint64, int) { return c.nodes, c.leaves }
func (c *simCapture) RNG() uint64           { return c.rng }

func (c *simCapture) Leaf(i int) (string, []string, []msg.LeafEntity) {
	label, fields, ents, err := sim.SnapshotLeaf(c.snapshot, i)
	if err != nil {
		return "", nil, nil
	}
	out := make([]msg.LeafEntity, len(ents))
	for k, e := range ents {
		out[k] = msg.LeafEntity{ID: uint32(e.ID), Values: e.Values}
	}
	return label.String(), fields, out
}

// ReplayResult is the outcome of replaying an order log.
type ReplayResult struct {
	Header lockstep.OrderLogHeader
	// Ticks is how many ticks were replayed and matched (up to the first
	// bad one).
	Ticks int
	// Diverged: the replayed hash of tick FirstBadTick is Replayed, the
	// log says Logged.
	Diverged         bool
	FirstBadTick     uint64
	Logged, Replayed uint64
	// Truncated: the log ended inside a record.
	Truncated bool
}

// ReplayOrderLog re-simulates an order log (desync debug level 1) from the
// reference game's start and reports the first tick whose state hash
// differs from the one logged.
func ReplayOrderLog(r io.Reader) (ReplayResult, error) {
	lr, err := lockstep.NewOrderLogReader(r)
	if err != nil {
		return ReplayResult{}, err
	}
	res := ReplayResult{Header: lr.Header}
	g, _, err := newGame(lr.Header.Players, lr.Header.Player, lr.Header.Seed, nil)
	if err != nil {
		return res, err
	}
	for {
		rec, err := lr.Next()
		if err == io.EOF {
			res.Truncated = lr.Truncated
			return res, nil
		}
		if err != nil {
			return res, err
		}
		if err := g.ApplyTick(rec.Orders); err != nil {
			return res, fmt.Errorf("tick %d: %w", rec.Orders.Tick, err)
		}
		if h := g.StateHash(); h != rec.Hash {
			res.Diverged, res.FirstBadTick, res.Logged, res.Replayed = true, rec.Orders.Tick, rec.Hash, h
			return res, nil
		}
		res.Ticks++
	}
}

// DesyncConfig configures desync debugging and drills of a Run.
type DesyncConfig struct {
	// DebugLevel is every bot's desync debug level, 0..3; a bot plays at
	// the higher of it and the room's (the relay's DebugLevel message).
	DebugLevel uint8
	// DebugDir receives each bot's order log and snapshots, in a
	// directory player-{id} of its own; "" is the current directory.
	DebugDir string
	// ReportDir, if set, receives the desync reports the relay sent the
	// bots (desync_report_{seed}_{tick}.json, written once each).
	ReportDir string
	// Faults are desync drills to inject.
	Faults []Fault
	// ReportWait bounds how long a bot that saw a desync waits, after its
	// last tick, for the relay's report; 0 means DefaultReportWait.
	ReportWait time.Duration
}

// DefaultReportWait is DesyncConfig.ReportWait's default: two rounds of
// the relay's walk timeout, enough for a walk of a 2²⁴-leaf tree.
const DefaultReportWait = 10 * time.Second

// newSim builds the bot's simulation: the light stand-in, or the
// reference game with this bot's fault, under its debug level.
func (r *runner) newSim(c Client, seed uint64) (lockstep.Simulation, lockstep.OrderSource, *refGame, error) {
	if r.cfg.Light {
		return lockstep.LightSim{}, lockstep.NewLightInput(c.PlayerID()), nil, nil
	}
	var fault *Fault
	for i := range r.cfg.Desync.Faults {
		if r.cfg.Desync.Faults[i].Bot == r.index {
			fault = &r.cfg.Desync.Faults[i]
		}
	}
	game, input, err := newGame(r.cfg.RoomSize, c.PlayerID(), seed, fault)
	if err != nil {
		return nil, nil, nil, err
	}
	level := r.cfg.Desync.DebugLevel
	if d, ok := c.(interface{ DebugLevel() uint8 }); ok {
		level = max(level, d.DebugLevel())
	}
	r.report.DebugLevel = level
	if level == 0 {
		return game, input, game, nil
	}
	dir := filepath.Join(cmp.Or(r.cfg.Desync.DebugDir, "."), fmt.Sprintf("player-%d", c.PlayerID()))
	ds, err := lockstep.NewDebugSim(game, lockstep.DebugConfig{Level: level, Dir: dir,
		Header: lockstep.OrderLogHeader{Seed: seed, Players: r.cfg.RoomSize, Player: c.PlayerID()}})
	if err != nil {
		return nil, nil, nil, err
	}
	r.report.OrderLog = ds.OrderLogPath()
	return ds, input, game, nil
}

// endDesync closes the order log, records the injected fault and, if
// the relay reported a desync, waits a little for its report.
func (r *runner) endDesync(ctx context.Context, c Client, game *refGame, s lockstep.Simulation) {
	if ds, ok := s.(*lockstep.DebugSim); ok {
		if err := ds.Close(); err != nil && r.report.Error == "" {
			r.report.Error = fmt.Sprintf("order log: %v", err)
		}
	}
	if game != nil {
		r.report.InjectedDesync = game.injected
	}
	rc, ok := c.(interface {
		DesyncReport() (uint64, []byte, bool)
		Seed() (uint64, bool)
	})
	if !ok {
		return
	}
	wait := time.NewTimer(cmp.Or(r.cfg.Desync.ReportWait, DefaultReportWait))
	defer wait.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if t, doc, ok := rc.DesyncReport(); ok {
			seed, _ := rc.Seed()
			r.desync = doc
			r.report.DesyncReport = (&relay.DesyncReport{Seed: seed, Tick: t}).FileName()
			return
		}
		if c.Diagnostics().Desyncs == 0 || c.Status() >= lockstep.StatusEnded {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
			return
		case <-tick.C:
		}
	}
}

// writeReports writes each desync report the bots received to dir, once.
func writeReports(dir string, bots []*runner) error {
	if dir == "" {
		return nil
	}
	done := map[string]bool{}
	for _, b := range bots {
		name := b.report.DesyncReport
		if name == "" || done[name] {
			continue
		}
		done[name] = true
		if err := atomicfile.Write(filepath.Join(dir, name), b.desync, 0o644); err != nil {
			return fmt.Errorf("lockstepbot: desync report: %w", err)
		}
	}
	return nil
}
