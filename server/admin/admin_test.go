package admin_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/server/admin"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

func TestEndpoints(t *testing.T) {
	s := admin.New(admin.SourceFunc(func() admin.Stats {
		return admin.Stats{ActiveGames: 3, Players: 12, BytesIn: 1000, BytesOut: 4000,
			SendErrors: map[string]uint64{"backpressure": 2, "closed": 9},
			Extra: []admin.Metric{
				{Name: "tickwire_relay_late_orders_total", Help: "Late.", Counter: true, Value: 7},
				{Name: "tickwire_relay_joins_refused_total", Help: "Joins refused.", Counter: true, Labels: [][2]string{{"reason", "room_full"}}, Value: 2},
				{Name: "tickwire_relay_joins_refused_total", Help: "Joins refused.", Counter: true, Labels: [][2]string{{"reason", "server_full"}}, Value: 1},
				{Name: "tickwire_relay_games", Help: "Games.", Labels: [][2]string{{"network_model", "lockstep"}}, Value: 3},
				{Name: "tickwire_relay_rooms_expired_total", Help: "Expired.", Counter: true, Value: 6},
				{Name: "a bad name", Value: 1}, // left out, the scrape still works
			}}
	}))
	h := s.Handler()
	if code, _ := get(t, h, "/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz: %d", code)
	}
	if code, _ := get(t, h, "/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz before ready: %d", code)
	}
	s.SetReady(true)
	if code, _ := get(t, h, "/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz when ready: %d", code)
	}
	var storeErr error
	s.AddCheck("records", func() error { return storeErr })
	storeErr = errors.New("disk full")
	if code, body := get(t, h, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "records: disk full") {
		t.Fatalf("/readyz with a failing check: %d %q", code, body)
	}
	storeErr = nil
	if code, _ := get(t, h, "/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz once the check passes again: %d", code)
	}
	code, body := get(t, h, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		"tickwire_relay_active_games 3",
		"tickwire_relay_players 12",
		"tickwire_relay_late_orders_total 7",
		"tickwire_relay_bytes_received_total 1000",
		"tickwire_relay_bytes_sent_total 4000",
		`tickwire_relay_send_errors_total{cause="backpressure"} 2`,
		`tickwire_relay_send_errors_total{cause="closed"} 9`,
		"# TYPE tickwire_relay_late_orders_total counter",
		"# TYPE tickwire_relay_active_games gauge",
		`tickwire_relay_joins_refused_total{reason="room_full"} 2`,
		`tickwire_relay_joins_refused_total{reason="server_full"} 1`,
		"# TYPE tickwire_relay_joins_refused_total counter",
		`tickwire_relay_games{network_model="lockstep"} 3`,
		"# TYPE tickwire_relay_games gauge",
		"tickwire_relay_rooms_expired_total 6",
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, _ := get(t, h, "/nope"); code != http.StatusNotFound {
		t.Fatalf("/nope: %d", code)
	}
}

// TestServeShutdown: Serve answers on a real listener and returns nil
// once its context ends.
func TestServeShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := admin.New(admin.SourceFunc(func() admin.Stats { return admin.Stats{} }))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "ok\n" {
		t.Fatalf("/healthz: %d %q", resp.StatusCode, b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after cancel: %v", err)
	}
}
