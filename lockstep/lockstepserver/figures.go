package lockstepserver

import (
	"sync/atomic"

	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server/admin"
)

// Stats are the lockstep model's figures, cumulative over its rooms.
type Stats struct {
	LateOrders     uint64 // submissions that missed their tick
	Strikes        uint64 // anti-lag-switch strikes
	Removals       uint64 // players removed from a match
	QosAdjustments uint64 // run-ahead/deadline changes
	Desyncs        uint64 // sync checks whose hashes disagreed
	HostStalls     uint64 // times a game's relay core found the relay itself had stalled
	// Malformed and Rejected count the rooms' messages that did not
	// decode and those the relay core refused.
	Malformed, Rejected uint64
	// MalformedByKind and RejectedByKind split them by the sentinel
	// error of the failure (see kinds.go): malformed "unknown_type",
	// "malformed", "range", "orders", "other"; rejected "phase", "tick",
	// "duplicate", "unexpected", "bad_pong", "bad_reveal", "removed",
	// "unknown_player", "other". Every kind is present, zero or not.
	MalformedByKind, RejectedByKind map[string]uint64
	// BroadcastLateness is how late tick frames left against the tick
	// schedule (window end plus deadline), over every game, in seconds.
	BroadcastLateness metrics.Cumulative
}

// counters are the model's figures, updated by its rooms and read
// concurrently.
type counters struct {
	lateOrders, strikes, removals       atomic.Uint64
	qosAdjustments, desyncs, hostStalls atomic.Uint64
	lateness                            *metrics.Bounded // seconds
	malformed, rejected                 *metrics.ByKind
}

// count records an event.
func (c *counters) count(ev relay.Event) {
	switch ev.(type) {
	case relay.LateSubmission:
		c.lateOrders.Add(1)
	case relay.Strike:
		c.strikes.Add(1)
	case relay.PlayerRemoved:
		c.removals.Add(1)
	case relay.QosAdjustmentEvent:
		c.qosAdjustments.Add(1)
	case relay.Desync:
		c.desyncs.Add(1)
	case relay.HostStall:
		c.hostStalls.Add(1)
	}
}

// Stats returns a snapshot of the model's figures. It is safe to call
// from any goroutine.
func (l *Lockstep) Stats() Stats {
	c := &l.c
	st := Stats{
		LateOrders:        c.lateOrders.Load(),
		Strikes:           c.strikes.Load(),
		Removals:          c.removals.Load(),
		QosAdjustments:    c.qosAdjustments.Load(),
		Desyncs:           c.desyncs.Load(),
		HostStalls:        c.hostStalls.Load(),
		BroadcastLateness: c.lateness.Snapshot(),
	}
	st.MalformedByKind, st.RejectedByKind = c.malformed.Snapshot(), c.rejected.Snapshot()
	for _, n := range st.MalformedByKind {
		st.Malformed += n
	}
	for _, n := range st.RejectedByKind {
		st.Rejected += n
	}
	return st
}

// metrics are the model's series on /metrics, under the names the
// server gave them before it hosted other models.
func (l *Lockstep) metrics() []admin.Metric {
	st := l.Stats()
	c := func(name, help string, v uint64) admin.Metric {
		return admin.Metric{Name: "tickwire_relay_" + name, Help: help, Counter: true, Value: float64(v)}
	}
	out := []admin.Metric{
		c("late_orders_total", "Order submissions that arrived after their tick's deadline.", st.LateOrders),
		c("strikes_total", "Lateness strikes given to players.", st.Strikes),
		c("qos_adjustments_total", "In-match QoS changes of run-ahead or deadline.", st.QosAdjustments),
		c("desyncs_total", "Sync-hash mismatches detected.", st.Desyncs),
		c("removals_total", "Players removed from a match (left, timed out, frozen, lag switch, no seed reveal).", st.Removals),
		c("host_stalls_total", "Times a game found the relay itself had stalled (CPU starvation, GC, a paused VM).", st.HostStalls),
	}
	out = append(out, byKind(MalformedMetric, MalformedHelp, st.MalformedByKind)...)
	out = append(out, byKind("tickwire_relay_rejected_messages_total", "Messages from clients the relay refused, by kind.", st.RejectedByKind)...)
	return append(out, admin.Metric{Name: "tickwire_relay_broadcast_lateness_seconds",
		Help: "How late tick frames left the relay against the tick schedule (window end plus deadline).", Histogram: &st.BroadcastLateness})
}

// MalformedMetric and MalformedHelp name the series of messages that did
// not decode, by kind: the server counts its joins' under the same name,
// and /metrics adds the two.
const (
	MalformedMetric = "tickwire_relay_malformed_messages_total"
	MalformedHelp   = "Messages from clients that did not decode, by kind."
)

// byKind is a by-kind counter as labelled series.
func byKind(name, help string, m map[string]uint64) []admin.Metric {
	out := make([]admin.Metric, 0, len(m))
	for k, v := range m {
		out = append(out, admin.Metric{Name: name, Help: help, Counter: true, Labels: [][2]string{{"kind", k}}, Value: float64(v)})
	}
	return out
}

// latenessBounds are the upper bounds of the lateness buckets in
// seconds, finer around the 2 ms capacity limit of "bench relay"; the
// table is never modified.
var latenessBounds = []float64{
	50e-6, 100e-6, 250e-6, 500e-6, 750e-6, 1e-3, 1.5e-3, 2e-3, 3e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3,
}
