package main

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/transport/transportbench"
)

// TestUrgentBesideQUIC is (e) of the congestion issue, measured for
// tickwire and quic-go in the same run, in virtual time: workload C2
// (128-byte reliable-ordered Critical messages at 500/s on four
// connections, 40 ± 10 ms each way, 3% loss, 1% duplication) for 30 s.
// tickwire's p99 stays within 1.5× the path's floor (the 99th percentile
// of the one-way delay alone: 40 ms plus 98% of the uniform ±10 ms
// jitter), and below quic-go's, which waits for retransmissions. Its
// bytes per message are logged beside quic-go's: the issue asks for no
// more, which parity at this loss and latency target does not reach yet
// (see BENCHMARKS.md).
func TestUrgentBesideQUIC(t *testing.T) {
	w, _ := transportbench.WorkloadByName("C2")
	floor := w.Link.Latency + w.Link.Jitter*98/100
	res := map[string]*transportbench.Result{}
	for _, name := range []string{"tickwire", "quic"} {
		synctest.Test(t, func(t *testing.T) {
			r, err := transportbench.Run(context.Background(), peers()[name], w,
				transportbench.RunConfig{Seed: 1, Duration: 30 * time.Second, Net: netsim.NewMemNetwork()})
			if err != nil {
				t.Fatal(err)
			}
			s := r.Series[0]
			t.Logf("%s: p50 %.1f ms, p99 %.1f ms (%.2f× the floor %v), %.1f B/msg (parity %.1f), %d of %d delivered",
				name, s.P50Ms, s.P99Ms, s.P99Ms/(floor.Seconds()*1000), floor, r.WireBytesPerMsg,
				float64(r.RedundancyBytes)/float64(s.Delivered), s.Delivered, s.Sent)
			if s.Delivered != s.Sent {
				t.Errorf("%s: %d of %d delivered", name, s.Delivered, s.Sent)
			}
			res[name] = r
		})
	}
	tw, quic := res["tickwire"], res["quic"]
	if tw == nil || quic == nil {
		return
	}
	if p99 := tw.Series[0].P99Ms; p99 > 1.5*float64(floor)/1e6 || p99 >= quic.Series[0].P99Ms {
		t.Errorf("tickwire p99 %.1f ms: over 1.5× the floor %v, or not below quic-go's %.1f ms", p99, floor, quic.Series[0].P99Ms)
	}
}
