package lockstepserver

import (
	"errors"
	"sync/atomic"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
)

// kind is one label of a by-kind counter: the sentinel error it counts
// and its name on /metrics.
type kind struct {
	name string
	err  error // nil: everything no other kind matches
}

// malformedKinds classify messages that did not decode, by the
// lockstep/msg sentinel their error wraps (the server classifies the
// joins that do not decode the same way, under the same metric); the
// table is never modified.
var malformedKinds = [...]kind{
	{"unknown_type", msg.ErrUnknownType},
	{"malformed", msg.ErrMalformed},
	{"range", msg.ErrRange},
	{"orders", msg.ErrOrders},
	{"other", nil},
}

// rejectedKinds classify messages the relay core refused, by the relay
// sentinel its error wraps; the table is never modified.
var rejectedKinds = [...]kind{
	{"phase", relay.ErrPhase},
	{"tick", relay.ErrTick},
	{"duplicate", relay.ErrDuplicate},
	{"unexpected", relay.ErrUnexpected},
	{"bad_pong", relay.ErrBadPong},
	{"bad_reveal", relay.ErrBadReveal},
	{"removed", relay.ErrRemoved},
	{"unknown_player", relay.ErrUnknownPlayer},
	{"other", nil},
}

// kindCounts are the malformed and rejected messages by kind.
type kindCounts struct {
	malformed [len(malformedKinds)]atomic.Uint64
	rejected  [len(rejectedKinds)]atomic.Uint64
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
	c.kinds.malformed[classify(malformedKinds[:], err)].Add(1)
}

// countRejected counts a message the relay core refused.
func (c *counters) countRejected(err error) {
	c.kinds.rejected[classify(rejectedKinds[:], err)].Add(1)
}

// snapshot returns the counts by kind name, kinds never seen included.
func (k *kindCounts) snapshot() (malformed, rejected map[string]uint64) {
	return byName(malformedKinds[:], k.malformed[:]), byName(rejectedKinds[:], k.rejected[:])
}

func byName(kinds []kind, n []atomic.Uint64) map[string]uint64 {
	out := make(map[string]uint64, len(kinds))
	for i, k := range kinds {
		out[k.name] = n[i].Load()
	}
	return out
}
