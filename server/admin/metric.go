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
	// Histogram, if set, makes the metric a histogram (Value and Counter
	// are ignored).
	Histogram *Histogram
}

// extraCollector exposes Stats.Extra. It is an unchecked collector
// (Describe sends nothing): the set of series is only known at scrape
// time. Series of one name and label values from several sources (the
// server's joins and a model's rooms count malformed messages under one
// name) are added up; of two histograms the first is kept.
type extraCollector struct{ src Source }

func (extraCollector) Describe(chan<- *prometheus.Desc) {}

func (c extraCollector) Collect(ch chan<- prometheus.Metric) {
	extra := c.src.AdminStats().Extra
	index := make(map[string]int, len(extra))
	var merged []Metric
	for _, m := range extra {
		key := m.Name
		for _, l := range m.Labels {
			key += "\x00" + l[0] + "\x00" + l[1]
		}
		if i, ok := index[key]; ok {
			merged[i].Value += m.Value
			continue
		}
		index[key] = len(merged)
		merged = append(merged, m)
	}
	for _, m := range merged {
		if pm, ok := m.sample(); ok {
			ch <- pm
		}
	}
}

// sample is m as a Prometheus sample; a malformed series (a bad name) is
// left out rather than failing the whole scrape.
func (m Metric) sample() (prometheus.Metric, bool) {
	names := make([]string, len(m.Labels))
	values := make([]string, len(m.Labels))
	for i, l := range m.Labels {
		names[i], values[i] = l[0], l[1]
	}
	d := prometheus.NewDesc(m.Name, m.Help, names, nil)
	if h := m.Histogram; h != nil {
		buckets := make(map[float64]uint64, len(h.Bounds))
		for i, b := range h.Bounds {
			if i < len(h.Counts) {
				buckets[b] = h.Counts[i]
			}
		}
		pm, err := prometheus.NewConstHistogram(d, h.Count, h.Sum, buckets, values...)
		return pm, err == nil
	}
	kind := prometheus.GaugeValue
	if m.Counter {
		kind = prometheus.CounterValue
	}
	pm, err := prometheus.NewConstMetric(d, kind, m.Value, values...)
	return pm, err == nil
}
