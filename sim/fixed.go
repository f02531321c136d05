package sim

import (
	"math/bits"

	"github.com/tickwire/tickwire/protocol"
)

// isqrt returns floor(sqrt(v)) for v >= 0, in integer arithmetic only.
func isqrt(v int64) int64 {
	if v <= 0 {
		return 0
	}
	// Newton's method from a power of two above the root: a few steps.
	x := int64(1) << ((bits.Len64(uint64(v)) + 1) / 2)
	y := (x + v/x) / 2
	for y < x {
		x = y
		y = (x + v/x) / 2
	}
	return x
}

// dist2 is the squared planar distance between a and b.
func dist2(a, b protocol.WorldPos) int64 {
	dx := int64(a.X) - int64(b.X)
	dy := int64(a.Y) - int64(b.Y)
	return dx*dx + dy*dy
}

// atanTable[i] is atan(i/64) in WAngle units, for i in 0..64.
var atanTable = [65]uint8{
	0, 3, 5, 8, 10, 13, 15, 18, 20, 23, 25, 28, 30, 33, 35, 38, 40, 42, 45, 47,
	49, 52, 54, 56, 58, 61, 63, 65, 67, 69, 71, 74, 76, 78, 80, 82, 84, 85, 87,
	89, 91, 93, 95, 96, 98, 100, 102, 103, 105, 106, 108, 110, 111, 113, 114,
	116, 117, 119, 120, 121, 123, 124, 125, 127, 128,
}

// angleOf returns the WAngle of the vector (dx, dy), accurate to a few units.
// The zero vector has angle 0.
func angleOf(dx, dy int64) WAngle {
	ax, ay := dx, dy
	if ax < 0 {
		ax = -ax
	}
	if ay < 0 {
		ay = -ay
	}
	if ax == 0 && ay == 0 {
		return 0
	}
	// Angle within the first octant, then unfolded.
	var a WAngle
	if ay <= ax {
		a = WAngle(atanTable[ay*64/ax])
	} else {
		a = FullTurn/4 - WAngle(atanTable[ax*64/ay])
	}
	switch {
	case dx >= 0 && dy >= 0:
		return a
	case dx < 0 && dy >= 0:
		return FullTurn/2 - a
	case dx < 0:
		return FullTurn/2 + a
	default:
		return (FullTurn - a) % FullTurn
	}
}
