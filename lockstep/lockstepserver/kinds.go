package lockstepserver

import (
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/metrics"
)

// malformedKinds classify messages that did not decode, by the
// lockstep/msg sentinel their error wraps (the server classifies the
// joins that do not decode the same way, under the same metric); the
// table is never modified.
var malformedKinds = []metrics.Kind{
	{Name: "unknown_type", Err: msg.ErrUnknownType},
	{Name: "malformed", Err: msg.ErrMalformed},
	{Name: "range", Err: msg.ErrRange},
	{Name: "orders", Err: msg.ErrOrders},
	{Name: "other"},
}

// rejectedKinds classify messages the relay core refused, by the relay
// sentinel its error wraps; the table is never modified.
var rejectedKinds = []metrics.Kind{
	{Name: "phase", Err: relay.ErrPhase},
	{Name: "tick", Err: relay.ErrTick},
	{Name: "duplicate", Err: relay.ErrDuplicate},
	{Name: "unexpected", Err: relay.ErrUnexpected},
	{Name: "bad_pong", Err: relay.ErrBadPong},
	{Name: "bad_reveal", Err: relay.ErrBadReveal},
	{Name: "removed", Err: relay.ErrRemoved},
	{Name: "unknown_player", Err: relay.ErrUnknownPlayer},
	{Name: "other"},
}

// countMalformed counts a message that did not decode.
func (c *counters) countMalformed(err error) { c.malformed.Count(err) }

// countRejected counts a message the relay core refused.
func (c *counters) countRejected(err error) { c.rejected.Count(err) }
