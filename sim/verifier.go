package sim

import (
	"fmt"
	"strings"

	"github.com/tickwire/tickwire/protocol"
)

// DualSimVerifier is the serialization test mode of the desync design: two
// simulations fed the same orders, their state hashes compared after every
// tick. The shadow starts as a Snapshot/Restore copy of the primary, and
// with RoundTripEvery set it is round-tripped through Snapshot and Restore
// again periodically, so state that escapes the snapshot shows up as a
// divergence too. It costs twice the CPU and memory: a test and debug tool.
type DualSimVerifier struct {
	primary, shadow *Sim
	// RoundTripEvery, when positive, round-trips the shadow through a
	// snapshot every that many ticks.
	RoundTripEvery uint64
	err            error
}

// DivergenceError describes the first tick at which the simulations differ.
type DivergenceError struct {
	Tick            uint64 // the tick whose orders were just applied
	Primary, Shadow uint64 // state hashes
	Leaves          []LeafLabel
	Differences     []Difference
}

func (e *DivergenceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v at tick %d: hash %#016x != %#016x", ErrDiverged, e.Tick, e.Primary, e.Shadow)
	for _, l := range e.Leaves {
		fmt.Fprintf(&b, "; differs in %s", l)
	}
	for i, d := range e.Differences {
		if i == 8 {
			fmt.Fprintf(&b, "; and %d more", len(e.Differences)-i)
			break
		}
		fmt.Fprintf(&b, "; %s", d)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrDiverged) hold.
func (e *DivergenceError) Unwrap() error { return ErrDiverged }

// NewDualSimVerifier starts both simulations.
func NewDualSimVerifier(mapData MapData, config Config, seed uint64) (*DualSimVerifier, error) {
	p, err := New(mapData, config, seed)
	if err != nil {
		return nil, err
	}
	sh, err := New(mapData, config, seed)
	if err != nil {
		return nil, err
	}
	if err := sh.Restore(p.Snapshot()); err != nil {
		return nil, err
	}
	return &DualSimVerifier{primary: p, shadow: sh}, nil
}

// Primary is the simulation whose state callers read (bots, renderers).
func (v *DualSimVerifier) Primary() *Sim { return v.primary }

// ApplyTick applies t to both simulations and compares their hashes. After
// a divergence every call returns the same *DivergenceError.
func (v *DualSimVerifier) ApplyTick(t protocol.TickOrders) error {
	if v.err != nil {
		return v.err
	}
	if err := v.primary.ApplyTick(t); err != nil {
		return err
	}
	if err := v.shadow.ApplyTick(t); err != nil {
		return err
	}
	if v.RoundTripEvery > 0 && v.shadow.Tick()%v.RoundTripEvery == 0 {
		if err := v.shadow.Restore(v.shadow.Snapshot()); err != nil {
			return fmt.Errorf("sim: shadow snapshot round trip: %w", err)
		}
	}
	hp, hs := v.primary.StateHash(), v.shadow.StateHash()
	if hp == hs {
		return nil
	}
	d := &DivergenceError{Tick: t.Tick, Primary: hp, Shadow: hs}
	a, b := v.primary.MerkleTree(), v.shadow.MerkleTree()
	for _, i := range DiffTrees(a, b) {
		l, _ := a.Leaf(i)
		d.Leaves = append(d.Leaves, l)
	}
	d.Differences, _ = Diff(v.primary.Snapshot(), v.shadow.Snapshot())
	v.err = d
	return d
}

// InSync reports whether no divergence has been seen.
func (v *DualSimVerifier) InSync() bool { return v.err == nil }
