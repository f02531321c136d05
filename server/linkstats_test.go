package server_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// TestConnectionFigures: the server reports its connections' transport
// figures per network model, as histograms across the connections (min
// RTT, estimated bandwidth, loss, redundancy overhead), and counts the
// parity bytes sent and the messages rebuilt, including those of ended
// connections. Two players of the echo model send small messages on the
// Critical orders lane over 20 ms each way with 5% loss; the server echoes
// them, so both sides protect them with parity.
func TestConnectionFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		h := newModelHarness(t, modelConfig(&echoed))
		defer h.close()
		link := netsim.Link{Latency: 20 * time.Millisecond, Loss: 0.05}
		var conns []*transport.Conn
		for seed := range uint64(2) {
			pc, err := h.mn.ListenPacket("")
			if err != nil {
				t.Fatal(err)
			}
			c, err := transport.Dial(t.Context(), netsim.Wrap(pc, netsim.Config{Seed: seed + 1, Out: link, In: link}), h.l.Addr(), h.tc)
			if err != nil {
				t.Fatal(err)
			}
			h.conns = append(h.conns, c)
			sendJoin(t, c, &join.JoinRoom{Room: "cup", RoomSize: 2, MatchType: "tournament"})
			if _, ok := reply(t, c).(*join.JoinAccepted); !ok {
				t.Fatal("join refused")
			}
			conns = append(conns, c)
			go func() {
				for {
					if _, err := c.Receive(context.Background()); err != nil {
						return
					}
				}
			}()
		}
		msg := make([]byte, 64)
		for range 1000 { // 10 s at 100 messages per second each
			for _, c := range conns {
				if err := c.Send(lanes.Orders, msg); err != nil {
					t.Fatal(err)
				}
				c.Flush()
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Second)
		synctest.Wait()

		st := h.srv.Stats()
		links := st.Models[1].Links
		t.Logf("min RTT mean %.4f s, bandwidth mean %.0f B/s, loss mean %.3f, redundancy mean %.3f; %d parity bytes, %d recovered",
			links.MinRTT.Sum/2, links.Bandwidth.Sum/2, links.Loss.Sum/2, links.Redundancy.Sum/2, st.RedundancyBytes, st.Recovered)
		for name, hist := range map[string]struct {
			count uint64
			sum   float64
		}{
			"min RTT": {links.MinRTT.Count, links.MinRTT.Sum}, "bandwidth": {links.Bandwidth.Count, links.Bandwidth.Sum},
			"loss": {links.Loss.Count, links.Loss.Sum}, "redundancy": {links.Redundancy.Count, links.Redundancy.Sum},
		} {
			if hist.count != 2 || hist.sum <= 0 {
				t.Errorf("%s: %d observations summing to %g, want 2 and a positive sum", name, hist.count, hist.sum)
			}
		}
		if rtt := links.MinRTT.Sum / 2; rtt < 0.04 || rtt > 0.045 {
			t.Errorf("mean min RTT %v s, want the path's 40 ms", rtt)
		}
		if st.RedundancyBytes == 0 || st.Recovered == 0 {
			t.Errorf("redundancy %d bytes, %d recovered", st.RedundancyBytes, st.Recovered)
		}
		names := map[string]bool{}
		for _, m := range st.AdminMetrics() {
			if m.Histogram != nil && len(m.Labels) == 1 && m.Labels[0] == [2]string{"network_model", "echo"} {
				names[m.Name] = m.Histogram.Count == 2
			} else if m.Counter {
				names[m.Name] = m.Value > 0
			}
		}
		for _, n := range []string{"tickwire_relay_connection_min_rtt_seconds", "tickwire_relay_connection_estimated_bandwidth_bytes",
			"tickwire_relay_connection_loss_ratio", "tickwire_relay_connection_redundancy_ratio",
			"tickwire_relay_redundancy_bytes_total", "tickwire_relay_recovered_messages_total"} {
			if !names[n] {
				t.Errorf("%s missing or empty on /metrics", n)
			}
		}

		// The players leave: the histograms empty, the counters keep what
		// the ended connections sent.
		for _, c := range conns {
			c.Close()
		}
		time.Sleep(time.Second)
		synctest.Wait()
		after := h.srv.Stats()
		if after.Models[1].Links.MinRTT.Count != 0 || after.RedundancyBytes < st.RedundancyBytes || after.Recovered < st.Recovered {
			t.Errorf("after the players left: %d connections observed, redundancy %d bytes (was %d), %d recovered (was %d)",
				after.Models[1].Links.MinRTT.Count, after.RedundancyBytes, st.RedundancyBytes, after.Recovered, st.Recovered)
		}
	})
}
