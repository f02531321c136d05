package server

import (
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/transport"
)

// LinkFigures are the transport figures of a network model's open seated
// connections (players and spectators) at the moment of Server.Stats, as
// histograms across the connections: one series per model whatever the
// number of connections. Each open connection is one observation of each.
type LinkFigures struct {
	// MinRTT is the connections' smallest RTT samples, in seconds.
	MinRTT metrics.Cumulative
	// Bandwidth is the congestion controller's estimate of each path's
	// bottleneck bandwidth, in bytes per second (0 until measured).
	Bandwidth metrics.Cumulative
	// Loss is each connection's recent datagram loss rate, as a ratio.
	Loss metrics.Cumulative
	// Redundancy is each connection's redundancy overhead: the bytes it
	// sent as parity over all the bytes it sent.
	Redundancy metrics.Cumulative
}

const linkFigureHelp = "across the network model's open connections at scrape time (a snapshot, not cumulative)"

// Bucket bounds of the LinkFigures histograms.
var (
	minRTTBounds     = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}
	bandwidthBounds  = []float64{1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7, 3e7, 1e8}
	ratioBounds      = []float64{0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5}
	linkFigureSeries = []struct{ name, help string }{
		{"tickwire_relay_connection_min_rtt_seconds", "Smallest RTT of each connection, "},
		{"tickwire_relay_connection_estimated_bandwidth_bytes", "Estimated bottleneck bandwidth of each connection's path in bytes per second (0 until measured), "},
		{"tickwire_relay_connection_loss_ratio", "Recent datagram loss rate of each connection, "},
		{"tickwire_relay_connection_redundancy_ratio", "Share of each connection's sent bytes that were parity, "},
	}
)

// linkAccumulator gathers the figures of a model's connections.
type linkAccumulator struct {
	minRTT, bandwidth, loss, redundancy *metrics.Bounded
}

func newLinkAccumulator() *linkAccumulator {
	return &linkAccumulator{minRTT: metrics.NewBounded(minRTTBounds...), bandwidth: metrics.NewBounded(bandwidthBounds...),
		loss: metrics.NewBounded(ratioBounds...), redundancy: metrics.NewBounded(ratioBounds...)}
}

// observe adds one connection's figures.
func (a *linkAccumulator) observe(cs transport.Stats) {
	a.minRTT.Observe(cs.MinRTT.Seconds())
	a.bandwidth.Observe(cs.EstimatedBandwidth)
	a.loss.Observe(cs.LossPercent / 100)
	red := 0.0
	if cs.BytesSent > 0 {
		red = float64(cs.RedundancyBytes) / float64(cs.BytesSent)
	}
	a.redundancy.Observe(red)
}

func (a *linkAccumulator) figures() LinkFigures {
	return LinkFigures{MinRTT: a.minRTT.Snapshot(), Bandwidth: a.bandwidth.Snapshot(), Loss: a.loss.Snapshot(), Redundancy: a.redundancy.Snapshot()}
}

// adminMetrics are f's histograms, labelled with the model's name.
func (f *LinkFigures) adminMetrics(model string) []admin.Metric {
	label := [][2]string{{"network_model", model}}
	var out []admin.Metric
	for i, h := range []metrics.Cumulative{f.MinRTT, f.Bandwidth, f.Loss, f.Redundancy} {
		s := linkFigureSeries[i]
		out = append(out, admin.Metric{Name: s.name, Help: s.help + linkFigureHelp + ".", Labels: label, Histogram: &h})
	}
	return out
}
