package admin

import "github.com/prometheus/client_golang/prometheus"

// Metric is one figure outside the relay's fixed set: a network model's
// own figures, or a labelled series. The admin endpoint turns each into a
// Prometheus sample at scrape time.
type Metric struct {
	// Name is the full metric name, e.g. tickwire_fogauth_tick_overruns_total.
	Name string
	// Help is the metric's one-line description.
	Help string
	// Counter marks a cumulative counter; otherwise the metric is a gauge.
	Counter bool
	// Labels are the sample's label names and values, in pairs:
	// {"network_model", "lockstep"}.
	Labels [][2]string
	// Value is the sample's value.
	Value float64
}

// extraCollector exposes Stats.Extra. It is an unchecked collector
// (Describe sends nothing): the set of series is only known at scrape
// time.
type extraCollector struct{ src Source }

func (extraCollector) Describe(chan<- *prometheus.Desc) {}

func (c extraCollector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.src.AdminStats().Extra {
		names := make([]string, len(m.Labels))
		values := make([]string, len(m.Labels))
		for i, l := range m.Labels {
			names[i], values[i] = l[0], l[1]
		}
		kind := prometheus.GaugeValue
		if m.Counter {
			kind = prometheus.CounterValue
		}
		// A malformed series (a bad name) is left out rather than failing
		// the whole scrape.
		d := prometheus.NewDesc(m.Name, m.Help, names, nil)
		if pm, err := prometheus.NewConstMetric(d, kind, m.Value, values...); err == nil {
			ch <- pm
		}
	}
}
