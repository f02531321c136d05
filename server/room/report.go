package room

import "time"

// Reporter is implemented by a Core that shows its own figures on the
// dashboard. The driver calls Report from its loop when it publishes the
// room's Status (every StatusInterval); the Report must not share memory
// the Core keeps changing, since viewers read it from other goroutines.
type Reporter interface {
	Report(now time.Duration) Report
}

// Report is what a model shows about one room beside the server's
// generic figures: counters, per-player series and recent events. Its
// size must be bounded by the model (fixed-size rings), whatever the
// match's length.
type Report struct {
	// Counters are the room's own figures ("late_orders", "desyncs", …).
	Counters []Figure `json:"counters,omitempty"`
	// Series are per-player (or room-wide, Player 0) series over recent
	// ticks, oldest first.
	Series []Series `json:"series,omitempty"`
	// Events are recent notable events, oldest first.
	Events []Event `json:"events,omitempty"`
	// Histograms are distributions (per player, or room-wide, Player 0).
	Histograms []Histogram `json:"histograms,omitempty"`
	// Map is a spectator's map of the room, for a model that has one.
	Map *Map `json:"map,omitempty"`
	// Documents are JSON documents the room offers whole (a lockstep
	// room's last desync report): the dashboard serves each at
	// /api/v1/rooms/{room}/{name} and links it from the room's detail.
	// A document must not change once reported.
	Documents []Document `json:"-"`
}

// Histogram is a named distribution of one player (0: the room): Count
// samples at most LE, above the previous bucket's LE; the last bucket's
// LE may be +Inf, written as the largest sample.
type Histogram struct {
	Name    string   `json:"name"`
	Player  int      `json:"player"`
	Unit    string   `json:"unit,omitempty"`
	Buckets []Bucket `json:"buckets"`
}

// Bucket is one bucket of a Histogram.
type Bucket struct {
	LE    float64 `json:"le"`
	Count uint64  `json:"count"`
}

// Document is a named JSON document of a room.
type Document struct {
	Name string
	JSON []byte
}

// Figure is a named value.
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Series is a named series of points of one player (0: the room).
type Series struct {
	Name   string  `json:"name"`
	Player int     `json:"player"`
	Unit   string  `json:"unit,omitempty"`
	Points []Point `json:"points"`
}

// Point is one value of a Series at a tick; Flag marks it ("late",
// "idle", …) for the page to highlight.
type Point struct {
	Tick  uint64  `json:"tick"`
	Value float64 `json:"value"`
	Flag  string  `json:"flag,omitempty"`
}

// Event is a notable event of a room: Kind is its class ("qos", "removal",
// "desync", …), Detail a sentence for a person.
type Event struct {
	Tick   uint64 `json:"tick"`
	Player int    `json:"player,omitempty"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// Ring is a bounded series of values of T: Push beyond its capacity
// drops the oldest. The zero value holds nothing; make one with NewRing.
type Ring[T any] struct {
	buf  []T
	next int
	full bool
}

// NewRing returns a ring holding the last n values.
func NewRing[T any](n int) Ring[T] { return Ring[T]{buf: make([]T, n)} }

// Push adds v, dropping the oldest value if the ring is full.
func (r *Ring[T]) Push(v T) {
	if len(r.buf) == 0 {
		return
	}
	r.buf[r.next] = v
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

// Len is how many values the ring holds.
func (r *Ring[T]) Len() int {
	if r.full {
		return len(r.buf)
	}
	return r.next
}

// AppendTo appends the values, oldest first, to dst.
func (r *Ring[T]) AppendTo(dst []T) []T {
	if r.full {
		dst = append(dst, r.buf[r.next:]...)
	}
	return append(dst, r.buf[:r.next]...)
}
