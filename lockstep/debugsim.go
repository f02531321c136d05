package lockstep

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tickwire/tickwire/internal/atomicfile"
	"github.com/tickwire/tickwire/protocol"
)

// DefaultSnapshotEvery is the period of level 3's snapshots, in ticks.
const DefaultSnapshotEvery = 300

// DebugConfig configures a DebugSim.
type DebugConfig struct {
	// Level is the desync debug level: 0 nothing, 1 the order log, 2 also
	// cache validation every tick, 3 also periodic snapshots.
	Level uint8
	// Dir receives the order log (order_log_{seed}.bin) and the
	// snapshots (desync_{seed}_{tick}.snap); "" is the current directory.
	Dir string
	// Header identifies the match in the order log.
	Header OrderLogHeader
	// SnapshotEvery is level 3's period in ticks; 0 means
	// DefaultSnapshotEvery.
	SnapshotEvery uint64
}

// CacheChecker is a simulation that can validate its derived caches
// against its state (level 2).
type CacheChecker interface {
	CheckCaches() error
}

// Snapshotter is a simulation that serialises its whole state (level 3).
type Snapshotter interface {
	Snapshot() []byte
}

// DebugSim runs a Simulation under a desync debug level: after each tick
// it logs the orders and the hash (level 1), validates the derived caches
// (level 2: an error stops the game loop, naming the tick) and saves a
// snapshot every SnapshotEvery ticks (level 3, files written atomically).
// It answers the desync walk through the simulation it wraps.
type DebugSim struct {
	sim  Simulation
	cfg  DebugConfig
	file *os.File
	path string // the order log's
	log  *OrderLogWriter
	hash uint64
}

// NewDebugSim wraps s; at level 1 and above it creates the order log.
func NewDebugSim(s Simulation, cfg DebugConfig) (*DebugSim, error) {
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = DefaultSnapshotEvery
	}
	d := &DebugSim{sim: s, cfg: cfg, hash: s.StateHash()}
	if cfg.Level < 1 {
		return d, nil
	}
	if err := os.MkdirAll(d.dir(), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(d.dir(), fmt.Sprintf("order_log_%d.bin", cfg.Header.Seed)))
	if err != nil {
		return nil, err
	}
	if d.log, err = NewOrderLogWriter(f, cfg.Header); err != nil {
		f.Close()
		return nil, err
	}
	d.file, d.path = f, f.Name()
	return d, nil
}

func (d *DebugSim) dir() string {
	if d.cfg.Dir == "" {
		return "."
	}
	return d.cfg.Dir
}

// OrderLogPath is the order log's file, "" below level 1.
func (d *DebugSim) OrderLogPath() string { return d.path }

// ApplyTick implements Simulation.
func (d *DebugSim) ApplyTick(t protocol.TickOrders) error {
	if err := d.sim.ApplyTick(t); err != nil {
		return err
	}
	d.hash = d.sim.StateHash()
	if d.cfg.Level >= 1 {
		if err := d.log.Append(t, d.hash); err != nil {
			return fmt.Errorf("order log: %w", err)
		}
	}
	if c, ok := d.sim.(CacheChecker); ok && d.cfg.Level >= 2 {
		if err := c.CheckCaches(); err != nil {
			return fmt.Errorf("cache validation after tick %d: %w", t.Tick, err)
		}
	}
	if s, ok := d.sim.(Snapshotter); ok && d.cfg.Level >= 3 && t.Tick%d.cfg.SnapshotEvery == 0 {
		name := filepath.Join(d.dir(), fmt.Sprintf("desync_%d_%d.snap", d.cfg.Header.Seed, t.Tick))
		if err := atomicfile.Write(name, s.Snapshot(), 0o644); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
	}
	return nil
}

// StateHash implements Simulation: the hash after the last tick.
func (d *DebugSim) StateHash() uint64 { return d.hash }

// CaptureDesync implements Inspectable through the wrapped simulation
// (nil if it cannot answer the walk).
func (d *DebugSim) CaptureDesync() DesyncCapture {
	if s, ok := d.sim.(Inspectable); ok {
		return s.CaptureDesync()
	}
	return nil
}

// Close flushes and closes the order log.
func (d *DebugSim) Close() error {
	if d.file == nil {
		return nil
	}
	err := d.log.Flush()
	if cerr := d.file.Close(); err == nil {
		err = cerr
	}
	d.file = nil
	return err
}
