package transportbench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/transport"
)

// SeriesResult holds the figures of one series of messages.
type SeriesResult struct {
	Name       string  `json:"name"`
	Sent       int     `json:"sent"`
	Delivered  int     `json:"delivered"`
	Duplicates int     `json:"duplicates_delivered,omitempty"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	P999Ms     float64 `json:"p999_ms"`
	MaxMs      float64 `json:"max_ms"`
	// GoodputBps is the message bytes received from the series' first
	// send to the end of the sending phase, per second of that span.
	GoodputBps float64 `json:"goodput_bytes_per_s"`
}

// Result is the JSON object printed for one run.
type Result struct {
	Workload string `json:"workload"`
	About    string `json:"about"`
	Peer     string `json:"peer"`
	Conns    int    `json:"conns"`
	// ConnsAccepted is the connections the server accepted (normally Conns).
	ConnsAccepted int            `json:"conns_accepted"`
	Seconds       float64        `json:"seconds"` // sending phase
	Series        []SeriesResult `json:"series"`

	WirePackets     uint64  `json:"wire_packets"`
	WireBytes       uint64  `json:"wire_bytes"`
	WireBytesPerMsg float64 `json:"wire_bytes_per_msg,omitempty"`
	// CPU is the process's user+system time over the sending phase and
	// the drain, so it includes the load generator and netsim itself.
	CPUSeconds      float64 `json:"cpu_s"`
	CPUMicrosPerMsg float64 `json:"cpu_us_per_msg,omitempty"`
	// Per connection-second figures, for the idle workload W5.
	WireBytesPerConnSec float64 `json:"wire_bytes_per_conn_s,omitempty"`
	CPUMicrosPerConnSec float64 `json:"cpu_us_per_conn_s,omitempty"`

	RSSMiB     float64 `json:"rss_mib"`
	PeakRSSMiB float64 `json:"peak_rss_mib"`

	// Figures of the client connections, for peers that report them
	// (tickwire, see Figures): estimated bottleneck bandwidth, min RTT and
	// recent loss averaged over the connections, and the bytes they sent
	// as redundancy (parity), summed.
	EstimatedBandwidthBps float64 `json:"estimated_bandwidth_bytes_per_s,omitempty"`
	MinRTTMs              float64 `json:"min_rtt_ms,omitempty"`
	LossPercent           float64 `json:"loss_percent,omitempty"`
	RedundancyBytes       uint64  `json:"redundancy_bytes,omitempty"`
}

// Figures is a Conn that reports its transport's own figures.
type Figures interface {
	Stats() transport.Stats
}

// addFigures fills r's connection figures from the clients that report
// them.
func (r *Result) addFigures(clients []Conn) {
	n := 0
	for _, c := range clients {
		f, ok := c.(Figures)
		if !ok {
			continue
		}
		st := f.Stats()
		r.EstimatedBandwidthBps += st.EstimatedBandwidth
		r.MinRTTMs += float64(st.MinRTT) / 1e6
		r.LossPercent += st.LossPercent
		r.RedundancyBytes += st.RedundancyBytes
		n++
	}
	if n > 0 {
		r.EstimatedBandwidthBps /= float64(n)
		r.MinRTTMs /= float64(n)
		r.LossPercent /= float64(n)
	}
}

// RunConfig sets up one run of a workload.
type RunConfig struct {
	// Seed seeds the netsim links; client i uses Seed+i.
	Seed uint64
	// Duration is the sending time; 0 means the workload's full length.
	Duration time.Duration
	// Keepalive is the keepalive interval; 0 means 1 s.
	Keepalive time.Duration
	// MTU is the largest datagram; 0 means 1,200 bytes.
	MTU int
	// Net, when set, carries the run over an in-memory network instead of
	// loopback UDP sockets, so that it can run in virtual time (inside a
	// testing/synctest bubble).
	Net *netsim.MemNetwork
}

// Run runs workload w over peer p and computes its figures. The caller
// fills Result.Peer.
func Run(ctx context.Context, p Peer, w Workload, rc RunConfig) (*Result, error) {
	d := rc.Duration
	if d <= 0 {
		d = w.Full
	}
	o := Options{Keepalive: rc.Keepalive, MTU: rc.MTU, Unreliable: w.Unreliable, Bandwidth: w.Link.BandwidthBps}
	if o.Keepalive <= 0 {
		o.Keepalive = time.Second
	}
	if o.MTU <= 0 {
		o.MTU = 1200
	}
	w.net = rc.Net
	return measure(ctx, p, w, o, rc.Seed, d)
}

// measure runs one workload and computes its figures.
func measure(ctx context.Context, p Peer, w Workload, o Options, seed uint64, d time.Duration) (*Result, error) {
	e, cleanup, err := start(ctx, p, w, o, seed)
	if err != nil {
		return nil, err
	}
	defer cleanup()

	cpu0, began := CPUTime(), time.Now()
	pk0, by0 := e.wire()
	if err := w.drive(ctx, e, d); err != nil {
		return nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	sending := time.Since(began)
	sendEnd := time.Since(e.epoch)
	atEnd := map[series]received{}
	for _, s := range e.seriesSent() {
		atEnd[s] = e.rec.snapshot(s)
	}
	// Drain: wait for reliable series to complete (bounded; Bulk is left
	// behind by design), and a second more for unreliable messages still
	// in flight.
	waitFor(ctx, 15*time.Second, func() bool {
		for _, s := range e.seriesSent() {
			if s.lane != Unreliable && s.lane != Bulk && e.rec.count(s) < e.sentCount(s) {
				return false
			}
		}
		return true
	})
	if w.Unreliable {
		time.Sleep(time.Second)
	}
	cpu := CPUTime() - cpu0
	pk1, by1 := e.wire()

	res := &Result{Workload: w.Name, About: w.About, Conns: w.Conns, ConnsAccepted: e.accepted(), Seconds: sending.Seconds(),
		WirePackets: pk1 - pk0, WireBytes: by1 - by0, CPUSeconds: cpu.Seconds(),
		RSSMiB: float64(currentRSS()) / (1 << 20), PeakRSSMiB: float64(peakRSS()) / (1 << 20)}
	res.addFigures(e.clients)
	delivered := 0
	for _, s := range e.seriesSent() {
		got := e.rec.snapshot(s)
		lat := got.latencies
		slices.Sort(lat)
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
		name := s.lane.String()
		if w.Name == "W4" {
			name += [...]string{"_unloaded", "_loaded"}[s.phase]
		}
		res.Series = append(res.Series, SeriesResult{
			Name: name, Sent: e.sentCount(s), Delivered: len(lat), Duplicates: got.duplicates,
			P50Ms: ms(metrics.Quantile(lat, 0.5)), P99Ms: ms(metrics.Quantile(lat, 0.99)), P999Ms: ms(metrics.Quantile(lat, 0.999)),
			MaxMs: ms(metrics.Quantile(lat, 1)), GoodputBps: metrics.PerSecond(atEnd[s].bytes, sendEnd-e.firstSentAt(s)),
		})
		delivered += len(lat)
	}
	if delivered > 0 {
		res.WireBytesPerMsg = float64(res.WireBytes) / float64(delivered)
		res.CPUMicrosPerMsg = float64(cpu.Microseconds()) / float64(delivered)
	}
	connSec := float64(w.Conns) * sending.Seconds()
	if w.Name == "W5" {
		res.WireBytesPerConnSec = float64(res.WireBytes) / connSec
		res.CPUMicrosPerConnSec = float64(cpu.Microseconds()) / connSec
	}
	return res, nil
}

// seriesSent lists the series sent so far, in a stable order.
func (e *env) seriesSent() []series {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]series, 0, len(e.sent))
	for s := range e.sent {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b series) int {
		if a.lane != b.lane {
			return int(a.lane) - int(b.lane)
		}
		return int(a.phase) - int(b.phase)
	})
	return out
}

func (e *env) firstSentAt(s series) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.firstSent[s]
}

func (e *env) sentCount(s series) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent[s]
}

// WriteText writes r as a few lines of text.
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "%s %s: %d conns (%d accepted), %.1fs sending; %s\n", r.Workload, r.Peer, r.Conns, r.ConnsAccepted, r.Seconds, r.About)
	for _, s := range r.Series {
		fmt.Fprintf(w, "  %-18s sent %8d delivered %8d dup %4d  p50 %8.2fms p99 %8.2fms p99.9 %8.2fms max %8.2fms goodput %10.0f B/s\n",
			s.Name, s.Sent, s.Delivered, s.Duplicates, s.P50Ms, s.P99Ms, s.P999Ms, s.MaxMs, s.GoodputBps)
	}
	fmt.Fprintf(w, "  wire %d packets, %d bytes (%.1f B/msg); cpu %.2fs (%.1f µs/msg); rss %.1f MiB (peak %.1f MiB)\n",
		r.WirePackets, r.WireBytes, r.WireBytesPerMsg, r.CPUSeconds, r.CPUMicrosPerMsg, r.RSSMiB, r.PeakRSSMiB)
	if r.Workload == "W5" {
		fmt.Fprintf(w, "  per connection-second: %.1f wire bytes, %.1f µs cpu\n", r.WireBytesPerConnSec, r.CPUMicrosPerConnSec)
	}
	if r.MinRTTMs > 0 {
		fmt.Fprintf(w, "  per connection: estimated bandwidth %.0f B/s, min RTT %.1f ms, loss %.1f%%; redundancy %d bytes in all\n",
			r.EstimatedBandwidthBps, r.MinRTTMs, r.LossPercent, r.RedundancyBytes)
	}
}
