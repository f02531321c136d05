package server

import (
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server/join"
)

// malformedKinds classify joins that did not decode, by the server/join
// sentinel their error wraps (a model counts its rooms' messages under
// the same metric, with kinds of its own: lockstep adds "orders"); the
// table is never modified.
var malformedKinds = []metrics.Kind{
	{Name: "unknown_type", Err: join.ErrUnknownType},
	{Name: "malformed", Err: join.ErrMalformed},
	{Name: "range", Err: join.ErrRange},
	{Name: "other"},
}

// countMalformed counts a message that did not decode.
func (c *counters) countMalformed(err error) {
	c.malformed.Add(1)
	c.malformedByKind.Count(err)
}
