package lockstepserver

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/lockstep/relay"
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
	// schedule (window end plus deadline), over every game.
	BroadcastLateness Histogram
}

// counters are the model's figures, updated by its rooms and read
// concurrently.
type counters struct {
	lateOrders, strikes, removals       atomic.Uint64
	qosAdjustments, desyncs, hostStalls atomic.Uint64
	lateness                            histogram
	kinds                               kindCounts
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
		BroadcastLateness: c.lateness.snapshot(),
	}
	st.MalformedByKind, st.RejectedByKind = c.kinds.snapshot()
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
	h := st.BroadcastLateness
	ah := &admin.Histogram{Count: h.Count, Sum: h.Sum.Seconds()}
	for i, b := range h.Bounds {
		ah.Bounds = append(ah.Bounds, b.Seconds())
		ah.Counts = append(ah.Counts, h.Counts[i])
	}
	return append(out, admin.Metric{Name: "tickwire_relay_broadcast_lateness_seconds",
		Help: "How late tick frames left the relay against the tick schedule (window end plus deadline).", Histogram: ah})
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

// latenessBounds are the upper bounds of the lateness buckets, finer
// around the 2 ms capacity limit of "bench relay"; the table is never
// modified.
var latenessBounds = [...]time.Duration{
	50 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	750 * time.Microsecond, time.Millisecond, 1500 * time.Microsecond, 2 * time.Millisecond,
	3 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
}

// Histogram is a cumulative histogram: Counts[i] observations were at
// most Bounds[i], and Count observations were made in all (the last
// bucket is +Inf).
type Histogram struct {
	Bounds [len(latenessBounds)]time.Duration
	Counts [len(latenessBounds)]uint64
	Count  uint64
	Sum    time.Duration
}

// Quantile estimates the q-quantile (0 < q ≤ 1) as the upper bound of the
// bucket it falls in; beyond the last bound it returns that bound.
func (h Histogram) Quantile(q float64) time.Duration {
	if h.Count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.Count)))
	for i, c := range h.Counts {
		if c >= rank {
			return h.Bounds[i]
		}
	}
	return h.Bounds[len(h.Bounds)-1]
}

// histogram collects a Histogram with atomics.
type histogram struct {
	buckets [len(latenessBounds)]atomic.Uint64 // not cumulative
	count   atomic.Uint64
	sum     atomic.Int64
}

func (h *histogram) observe(d time.Duration) {
	for i, b := range latenessBounds {
		if d <= b {
			h.buckets[i].Add(1)
			break
		}
	}
	h.count.Add(1)
	h.sum.Add(int64(d))
}

func (h *histogram) snapshot() Histogram {
	out := Histogram{Bounds: latenessBounds}
	var run uint64
	for i := range h.buckets {
		run += h.buckets[i].Load()
		out.Counts[i] = run
	}
	out.Count = h.count.Load()
	out.Sum = time.Duration(h.sum.Load())
	return out
}
