package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/server/admin"
)

// TestLatenessAndKinds: a model's histogram (lockstep's broadcast
// lateness) and labelled counters reach /metrics, and one series reported
// by two sources (the server's joins and a model's rooms count malformed
// messages under one name) is added up.
func TestLatenessAndKinds(t *testing.T) {
	kind := func(name, k string, v float64) admin.Metric {
		return admin.Metric{Name: name, Help: "By kind.", Counter: true, Labels: [][2]string{{"kind", k}}, Value: v}
	}
	s := admin.New(admin.SourceFunc(func() admin.Stats {
		return admin.Stats{
			Extra: []admin.Metric{
				{Name: "tickwire_relay_broadcast_lateness_seconds", Help: "Lateness.",
					Histogram: &admin.Histogram{Bounds: []float64{0.001, 0.002}, Counts: []uint64{7, 9}, Count: 10, Sum: 0.0125}},
				kind("tickwire_relay_malformed_messages_total", "unknown_type", 1),
				kind("tickwire_relay_malformed_messages_total", "orders", 0),
				kind("tickwire_relay_malformed_messages_total", "unknown_type", 1),
				kind("tickwire_relay_rejected_messages_total", "tick", 3),
			},
			HandshakesRefused: map[string]uint64{"token_expired": 4},
			TokenRefusals:     map[string]uint64{"wrong_room": 5},
		}
	}))
	code, body := get(t, s.Handler(), "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		"# TYPE tickwire_relay_broadcast_lateness_seconds histogram",
		`tickwire_relay_broadcast_lateness_seconds_bucket{le="0.001"} 7`,
		`tickwire_relay_broadcast_lateness_seconds_bucket{le="0.002"} 9`,
		`tickwire_relay_broadcast_lateness_seconds_bucket{le="+Inf"} 10`,
		"tickwire_relay_broadcast_lateness_seconds_sum 0.0125",
		"tickwire_relay_broadcast_lateness_seconds_count 10",
		`tickwire_relay_malformed_messages_total{kind="unknown_type"} 2`,
		`tickwire_relay_malformed_messages_total{kind="orders"} 0`,
		`tickwire_relay_rejected_messages_total{kind="tick"} 3`,
		`tickwire_relay_handshakes_refused_total{reason="token_expired"} 4`,
		`tickwire_relay_token_refusals_total{reason="wrong_room"} 5`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
