package admin

import (
	"maps"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// collector turns one Source snapshot per scrape into metrics.
type collector struct {
	src Source

	games, players     *prometheus.Desc
	bytesIn, bytesOut  *prometheus.Desc
	sendErrors         *prometheus.Desc
	handshakes, tokens *prometheus.Desc
}

func newCollector(src Source) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("tickwire_relay_"+name, help, labels, nil)
	}
	return &collector{
		src:      src,
		games:    d("active_games", "Games in progress."),
		players:  d("players", "Connected players."),
		bytesIn:  d("bytes_received_total", "UDP payload bytes received."),
		bytesOut: d("bytes_sent_total", "UDP payload bytes sent."),
		sendErrors: prometheus.NewDesc("tickwire_relay_send_errors_total",
			"Messages the relay could not send, by cause (backpressure, too_large, closed, encode, other).", []string{"cause"}, nil),
		handshakes: d("handshakes_refused_total", "Secure handshakes refused, by reason.", "reason"),
		tokens:     d("token_refusals_total", "Joins refused for their connect token, by reason.", "reason"),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.games, c.players, c.bytesIn, c.bytesOut, c.handshakes, c.tokens, c.sendErrors} {
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
	counter(c.bytesIn, s.BytesIn)
	counter(c.bytesOut, s.BytesOut)
	for _, cause := range slices.Sorted(maps.Keys(s.SendErrors)) {
		ch <- prometheus.MustNewConstMetric(c.sendErrors, prometheus.CounterValue, float64(s.SendErrors[cause]), cause)
	}
	labelled(c.handshakes, s.HandshakesRefused)
	labelled(c.tokens, s.TokenRefusals)
}
