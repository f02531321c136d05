package server

import (
	"errors"
	"sync/atomic"

	"github.com/tickwire/tickwire/server/join"
)

// kind is one label of a by-kind counter: the sentinel error it counts
// and its name on /metrics.
type kind struct {
	name string
	err  error // nil: everything no other kind matches
}

// malformedKinds classify joins that did not decode, by the server/join
// sentinel their error wraps (a model counts its rooms' messages under
// the same metric, with kinds of its own: lockstep adds "orders"); the
// table is never modified.
var malformedKinds = [...]kind{
	{"unknown_type", join.ErrUnknownType},
	{"malformed", join.ErrMalformed},
	{"range", join.ErrRange},
	{"other", nil},
}

// kindCounts are the joins that did not decode, by kind.
type kindCounts struct {
	malformed [len(malformedKinds)]atomic.Uint64
}

// classify returns the index of the first kind err matches.
func classify(kinds []kind, err error) int {
	for i, k := range kinds {
		if k.err == nil || errors.Is(err, k.err) {
			return i
		}
	}
	return len(kinds) - 1
}

// countMalformed counts a message that did not decode.
func (c *counters) countMalformed(err error) {
	c.malformed.Add(1)
	c.kinds.malformed[classify(malformedKinds[:], err)].Add(1)
}

// snapshot returns the counts by kind name, kinds never seen included.
func (k *kindCounts) snapshot() map[string]uint64 {
	return byName(malformedKinds[:], k.malformed[:])
}

func byName(kinds []kind, n []atomic.Uint64) map[string]uint64 {
	out := make(map[string]uint64, len(kinds))
	for i, k := range kinds {
		out[k.name] = n[i].Load()
	}
	return out
}
