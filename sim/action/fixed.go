package action

// Fixed is a 16.16 fixed-point number: One is one world unit (a player is
// about one unit wide). All state is Fixed or integer; there are no floats
// in any computation whose result is state.
type Fixed int32

// One is the Fixed value 1.0.
const One Fixed = 1 << 16

// Units returns n whole world units as Fixed.
func Units(n int) Fixed { return Fixed(n) * One }

// Float converts f for display only (renderers, telemetry); never feed the
// result back into the state.
func (f Fixed) Float() float64 { return float64(f) / float64(One) }

// mul multiplies two Fixed values, rounding toward negative infinity.
func mul(a, b Fixed) Fixed { return Fixed((int64(a) * int64(b)) >> 16) }

// Vec3 is a position or velocity: X and Y span the arena floor, Z is height
// above it.
type Vec3 struct{ X, Y, Z Fixed }

// Add returns v+o.
func (v Vec3) Add(o Vec3) Vec3 { return Vec3{v.X + o.X, v.Y + o.Y, v.Z + o.Z} }

// Dist2 is the squared distance between v and o on the floor plane, in
// units of Fixed² >> 16 (so it compares directly with mul(r, r)).
func (v Vec3) Dist2(o Vec3) int64 {
	dx, dy := int64(v.X-o.X), int64(v.Y-o.Y)
	return (dx*dx + dy*dy) >> 16
}

// sinQuarter[i] is sin(i/256 of a turn) in 16.16, for i in 0..64.
var sinQuarter = [65]int32{
	0, 1608, 3216, 4821, 6424, 8022, 9616, 11204, 12785, 14359, 15924, 17479,
	19024, 20557, 22078, 23586, 25080, 26558, 28020, 29466, 30893, 32303, 33692,
	35062, 36410, 37736, 39040, 40320, 41576, 42806, 44011, 45190, 46341, 47464,
	48559, 49624, 50660, 51665, 52639, 53581, 54491, 55368, 56212, 57022, 57798,
	58538, 59244, 59914, 60547, 61145, 61705, 62228, 62714, 63162, 63572, 63944,
	64277, 64571, 64827, 65043, 65220, 65358, 65457, 65516, 65536,
}

// sin256 returns sin of i/256 of a turn in 16.16.
func sin256(i uint8) Fixed {
	q := int(i) % 128
	if q > 64 {
		q = 128 - q
	}
	if i >= 128 {
		return -Fixed(sinQuarter[q])
	}
	return Fixed(sinQuarter[q])
}

// Dir returns the unit vector on the floor for yaw (65536 per turn, 0 along
// +X, counter-clockwise), to 1/256 of a turn.
func Dir(yaw uint16) (x, y Fixed) {
	i := uint8((yaw + 128) >> 8) // round to the nearest table step
	return sin256(i + 64), sin256(i)
}

// YawTo returns the yaw (to 1/256 of a turn) whose direction is closest to
// the vector (dx, dy); the zero vector gives 0.
func YawTo(dx, dy Fixed) uint16 {
	best, bestDot := 0, int64(-1<<62)
	for i := range 256 {
		cx, cy := Dir(uint16(i << 8))
		if d := int64(dx)*int64(cx) + int64(dy)*int64(cy); d > bestDot {
			best, bestDot = i, d
		}
	}
	return uint16(best << 8)
}
