package sim

import "errors"

// Sentinel errors, checked with errors.Is.
var (
	// ErrInvalidMap reports map data New cannot start a match from.
	ErrInvalidMap = errors.New("sim: invalid map data")
	// ErrTickSequence reports TickOrders whose tick is not the next one.
	ErrTickSequence = errors.New("sim: tick out of sequence")
	// ErrInvalidSnapshot reports snapshot bytes that do not decode.
	ErrInvalidSnapshot = errors.New("sim: invalid snapshot")
	// ErrSnapshotMismatch reports a well-formed snapshot of another map,
	// player count or rules configuration.
	ErrSnapshotMismatch = errors.New("sim: snapshot belongs to another match")
	// ErrDiverged reports that the two simulations of a DualSimVerifier
	// reached different states.
	ErrDiverged = errors.New("sim: determinism violation: simulations diverged")
)
