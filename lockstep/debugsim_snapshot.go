package lockstep

import "errors"

// errNoRestore: the simulation a DebugSim wraps cannot load a snapshot.
var errNoRestore = errors.New("lockstep: the simulation cannot restore a snapshot")

// Snapshot is the wrapped simulation's snapshot (nil if it has none), so
// a player debugging desyncs can still donate to a rejoining one.
func (d *DebugSim) Snapshot() []byte {
	if s, ok := d.sim.(Snapshotter); ok {
		return s.Snapshot()
	}
	return nil
}

// Restore loads a snapshot into the wrapped simulation, so a player
// debugging desyncs can rejoin. The order log goes on from the snapshot's
// tick.
func (d *DebugSim) Restore(b []byte) error {
	if s, ok := d.sim.(Restorer); ok {
		return s.Restore(b)
	}
	return errNoRestore
}
