package admin

import (
	"maps"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// collector turns one Source snapshot per scrape into metrics.
type collector struct {
	src Source

	games, players              *prometheus.Desc
	late, strikes, qos, desyncs *prometheus.Desc
	removals, hostStalls        *prometheus.Desc
	bytesIn, bytesOut           *prometheus.Desc
	sendErrors                  *prometheus.Desc
	lateness                    *prometheus.Desc
	malformed, rejected         *prometheus.Desc
	handshakes, tokens          *prometheus.Desc
}

func newCollector(src Source) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("tickwire_relay_"+name, help, labels, nil)
	}
	return &collector{
		src:        src,
		games:      d("active_games", "Games in progress."),
		players:    d("players", "Connected players."),
		late:       d("late_orders_total", "Order submissions that arrived after their tick's deadline."),
		strikes:    d("strikes_total", "Lateness strikes given to players."),
		qos:        d("qos_adjustments_total", "In-match QoS changes of run-ahead or deadline."),
		desyncs:    d("desyncs_total", "Sync-hash mismatches detected."),
		removals:   d("removals_total", "Players removed from a match (left, timed out, frozen, lag switch, no seed reveal)."),
		hostStalls: d("host_stalls_total", "Times a game found the relay itself had stalled (CPU starvation, GC, a paused VM)."),
		bytesIn:    d("bytes_received_total", "UDP payload bytes received."),
		bytesOut:   d("bytes_sent_total", "UDP payload bytes sent."),
		sendErrors: prometheus.NewDesc("tickwire_relay_send_errors_total",
			"Messages the relay could not send, by cause (backpressure, too_large, closed, encode, other).", []string{"cause"}, nil),
		lateness:   d("broadcast_lateness_seconds", "How late tick frames left the relay against the tick schedule (window end plus deadline)."),
		malformed:  d("malformed_messages_total", "Messages from clients that did not decode, by kind.", "kind"),
		rejected:   d("rejected_messages_total", "Messages from clients the relay refused, by kind.", "kind"),
		handshakes: d("handshakes_refused_total", "Secure handshakes refused, by reason.", "reason"),
		tokens:     d("token_refusals_total", "Joins refused for their connect token, by reason.", "reason"),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.games, c.players, c.late, c.strikes, c.qos, c.desyncs, c.removals, c.hostStalls,
		c.bytesIn, c.bytesOut, c.lateness, c.malformed, c.rejected, c.handshakes, c.tokens, c.sendErrors} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.AdminStats()
	gauge := func(d *prometheus.Desc, v int) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	counter := func(d *prometheus.Desc, v uint64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	labelled := func(d *prometheus.Desc, m map[string]uint64) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(m[k]), k)
		}
	}
	gauge(c.games, s.ActiveGames)
	gauge(c.players, s.Players)
	counter(c.late, s.LateOrders)
	counter(c.strikes, s.Strikes)
	counter(c.qos, s.QosAdjustments)
	counter(c.desyncs, s.Desyncs)
	counter(c.removals, s.Removals)
	counter(c.hostStalls, s.HostStalls)
	counter(c.bytesIn, s.BytesIn)
	counter(c.bytesOut, s.BytesOut)
	for _, cause := range slices.Sorted(maps.Keys(s.SendErrors)) {
		ch <- prometheus.MustNewConstMetric(c.sendErrors, prometheus.CounterValue, float64(s.SendErrors[cause]), cause)
	}
	labelled(c.malformed, s.Malformed)
	labelled(c.rejected, s.Rejected)
	labelled(c.handshakes, s.HandshakesRefused)
	labelled(c.tokens, s.TokenRefusals)
	h := s.BroadcastLateness
	buckets := make(map[float64]uint64, len(h.Bounds))
	for i, b := range h.Bounds {
		if i < len(h.Counts) {
			buckets[b] = h.Counts[i]
		}
	}
	ch <- prometheus.MustNewConstHistogram(c.lateness, h.Count, h.Sum, buckets)
}
