package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/server/admin"
)

// TestLatenessAndKinds: the broadcast lateness histogram and the by-kind
// counters of malformed and rejected messages reach /metrics.
func TestLatenessAndKinds(t *testing.T) {
	s := admin.New(admin.SourceFunc(func() admin.Stats {
		return admin.Stats{
			BroadcastLateness: admin.Histogram{Bounds: []float64{0.001, 0.002}, Counts: []uint64{7, 9}, Count: 10, Sum: 0.0125},
			Malformed:         map[string]uint64{"unknown_type": 2, "orders": 0},
			Rejected:          map[string]uint64{"tick": 3},
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
