package predict

import (
	"fmt"
	"math"

	"github.com/tickwire/tickwire/wire"
)

// ErrorBounds are the upper bounds, in world units, of the buckets of a
// CorrectionReport's error distribution; a last bucket counts the larger
// corrections.
var ErrorBounds = [...]float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4}

// NumErrorBuckets is the buckets of a CorrectionReport: ErrorBounds and
// the overflow.
const NumErrorBuckets = len(ErrorBounds) + 1

// CorrectionReport is a client's reconciliation figures since it joined
// (client to server, LaneSequenced, about once a second while they
// change): the corrections it made and their magnitude, so the server can
// show how its players' predictions fare (the dashboard's corrections per
// second and error distribution). Every figure is cumulative, so a lost
// report is repaired by the next; the server trusts it as telemetry only,
// never for the game.
//
//	type 0x33 | player u8 | corrections uvarint | hard snaps uvarint
//	| buckets: count uvarint (= NumErrorBuckets), each: corrections uvarint
//	  (error ≤ ErrorBounds[i]; the last: larger)
type CorrectionReport struct {
	Player      PlayerID
	Corrections uint64
	HardSnaps   uint64
	Errors      [NumErrorBuckets]uint64
}

// Append appends the encoded message to dst.
func (m *CorrectionReport) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	newBuilder(&b, dst, TypeCorrectionReport).U8(uint8(m.Player)).Uvarint(m.Corrections).Uvarint(m.HardSnaps)
	b.Uvarint(uint64(NumErrorBuckets))
	for _, n := range m.Errors {
		b.Uvarint(n)
	}
	return build(&b)
}

// Parse decodes b into m.
func (m *CorrectionReport) Parse(b []byte) error {
	var r wire.Reader
	if err := open(&r, b, TypeCorrectionReport); err != nil {
		return err
	}
	m.Player, m.Corrections, m.HardSnaps = PlayerID(r.U8()), r.Uvarint(), r.Uvarint()
	if n := r.Uvarint(); r.Err() == nil && n != uint64(NumErrorBuckets) {
		return fmt.Errorf("%w: correction report of %d buckets, want %d", ErrMalformed, n, NumErrorBuckets)
	}
	for i := range m.Errors {
		m.Errors[i] = r.Uvarint()
	}
	return finish(TypeCorrectionReport, &r)
}

// errorBuckets counts h's samples into the report's buckets (each of h's
// buckets goes whole to the first bound at or above its own).
func errorBuckets(h *Histogram) [NumErrorBuckets]uint64 {
	var out [NumErrorBuckets]uint64
	for le, n := range h.Buckets() {
		i := 0
		for i < len(ErrorBounds) && le > ErrorBounds[i] {
			i++
		}
		out[i] += n
	}
	return out
}

// ErrorBucketBound is the upper bound of report bucket i: ErrorBounds[i],
// or +Inf for the overflow.
func ErrorBucketBound(i int) float64 {
	if i < len(ErrorBounds) {
		return ErrorBounds[i]
	}
	return math.Inf(1)
}
