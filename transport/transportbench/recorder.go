package transportbench

import (
	"slices"
	"sync"
	"time"
)

// recorder collects what the receivers saw, per series.
type recorder struct {
	epoch time.Time

	mu     sync.Mutex
	series map[series]*received
	seen   map[[2]uint32]bool // (conn<<8|lane, seq) of unreliable messages
}

type received struct {
	latencies  []time.Duration
	bytes      int64
	duplicates int
	last       time.Duration // latest arrival, since the epoch
}

func newRecorder(epoch time.Time) *recorder {
	return &recorder{epoch: epoch, series: make(map[series]*received), seen: make(map[[2]uint32]bool)}
}

// record notes one received message; it returns false for a malformed one.
func (r *recorder) record(msg []byte) bool {
	h, ok := parseHeader(msg)
	if !ok {
		return false
	}
	now := time.Since(r.epoch)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.series[h.series]
	if s == nil {
		s = &received{}
		r.series[h.series] = s
	}
	if h.series.lane == Unreliable {
		key := [2]uint32{uint32(h.conn)<<8 | uint32(h.series.lane), h.seq}
		if r.seen[key] {
			s.duplicates++
			return true
		}
		r.seen[key] = true
	}
	s.latencies = append(s.latencies, now-h.sent)
	s.bytes += int64(len(msg))
	s.last = now
	return true
}

// count returns the messages received in a series so far.
func (r *recorder) count(s series) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if x := r.series[s]; x != nil {
		return len(x.latencies)
	}
	return 0
}

// snapshot returns a copy of a series.
func (r *recorder) snapshot(s series) received {
	r.mu.Lock()
	defer r.mu.Unlock()
	if x := r.series[s]; x != nil {
		c := *x
		c.latencies = slices.Clone(x.latencies)
		return c
	}
	return received{}
}
