package wire

import "math"

// Quantisation scales.
const (
	// PosScale is the number of QuantizedPos steps per world unit: 12
	// fractional bits, so a step is 1/4096 (about 0.24 mm for 1 m units).
	PosScale = 4096
	// MinQuantizedPos and MaxQuantizedPos are the smallest and largest
	// QuantizedPos axis values: the signed 32-bit value has 20 integer bits,
	// sign included, so the range is [-524288, 524287.999755859375].
	MinQuantizedPos = math.MinInt32 / float64(PosScale)
	MaxQuantizedPos = math.MaxInt32 / float64(PosScale)
	// AngleSteps is the number of QuantizedAngle steps in a full turn.
	AngleSteps = 1 << 16
)

// quantizePos converts one axis to 20.12 fixed point, rounding half away
// from zero. ok is false for NaN, infinities and values beyond 32 bits.
func quantizePos(v float64) (q int32, ok bool) {
	r := math.Round(v * PosScale)
	if !(r >= math.MinInt32 && r <= math.MaxInt32) {
		return 0, false
	}
	return int32(r), true
}

func dequantizePos(q int32) float64 {
	return float64(q) / PosScale
}

// quantizeAngle maps radians onto 1/65536ths of a turn, wrapping any finite
// angle into one turn. ok is false for NaN and infinities.
func quantizeAngle(rad float32) (q uint16, ok bool) {
	r := math.Round(float64(rad) / (2 * math.Pi) * AngleSteps)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return 0, false
	}
	return uint16(int64(math.Mod(r, AngleSteps))), true
}

// dequantizeAngle returns the angle of q in radians, in [-π, π).
func dequantizeAngle(q uint16) float32 {
	return float32(float64(int16(q)) * (2 * math.Pi) / AngleSteps)
}
