package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/internal/loopback"
)

func TestRelayFlags(t *testing.T) {
	f, err := parseServeFlags(nil, io.Discard)
	if err != nil || f.listen != "127.0.0.1:7777" || f.admin != "127.0.0.1:7778" || f.tps != 30 || f.maxGames != 1000 || f.waitingTimeout != 2*time.Minute {
		t.Fatalf("defaults %+v, %v", f, err)
	}
	f, err = parseServeFlags([]string{"--listen", ":9000", "--admin", "", "--tps", "60", "--max-games", "5"}, io.Discard)
	if err != nil || f.listen != ":9000" || f.admin != "" || f.tps != 60 || f.maxGames != 5 {
		t.Fatalf("parsed %+v, %v", f, err)
	}
	for _, bad := range [][]string{{"--tps", "0"}, {"--max-games", "0"}, {"--max-games", "-2"}, {"--max-room-size", "65"}, {"--waiting-timeout", "-1s"}, {"extra"}, {"--nope"}} {
		if _, err := parseServeFlags(bad, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}

// TestRelayAdmin runs "tickwire relay" and checks the admin endpoints
// while it runs, then its graceful shutdown.
func TestRelayAdmin(t *testing.T) {
	stop, _, adm := startRelay(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, _ := httpGet(t, "http://"+adm+path); code != http.StatusOK {
			t.Errorf("%s: %d", path, code)
		}
	}
	code, body := httpGet(t, "http://"+adm+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, name := range []string{"tickwire_relay_active_games", "tickwire_relay_players", "tickwire_relay_late_orders_total",
		"tickwire_relay_strikes_total", "tickwire_relay_qos_adjustments_total", "tickwire_relay_desyncs_total",
		"tickwire_relay_bytes_received_total", "tickwire_relay_bytes_sent_total",
		`tickwire_relay_games{network_model="lockstep"} 0`, `tickwire_relay_joins_refused_total{reason="room_full"} 0`,
		"tickwire_relay_rooms_expired_total 0", "tickwire_relay_messages_rate_limited_total 0", "tickwire_relay_draining 0",
		// Every name the docs promise, lockstep's among them (its model's
		// metrics since the server hosts it like any model).
		"tickwire_relay_host_stalls_total", "tickwire_relay_removals_total", "tickwire_relay_broadcast_lateness_seconds_bucket",
		`tickwire_relay_malformed_messages_total{kind="unknown_type"} 0`, `tickwire_relay_rejected_messages_total{kind="phase"} 0`,
		`tickwire_relay_send_errors_total{cause="backpressure"} 0`, "tickwire_relay_handshakes_refused_total", "tickwire_relay_token_refusals_total",
		`tickwire_relay_waiting_rooms{network_model="lockstep"} 0`, `tickwire_relay_room_players{network_model="lockstep"} 0`,
		`tickwire_relay_slow_disconnects_total{network_model="fog_authoritative"} 0`} {
		if !strings.Contains(body, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	stop()
}

// startRelay runs "tickwire relay" (with extra flags) on free loopback
// ports until the test calls stop (which checks a clean exit); it returns the relay's UDP and
// admin addresses.
func startRelay(t *testing.T, extra ...string) (stop func(), udpAddr, adminAddr string) {
	t.Helper()
	return startServer(t, "relay", extra...)
}

// startServer is startRelay for the subcommand sub ("serve" or its alias
// "relay").
func startServer(t *testing.T, sub string, extra ...string) (stop func(), udpAddr, adminAddr string) {
	t.Helper()
	udp, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var errOut bytes.Buffer
	args := append([]string{sub, "--listen", udp, "--admin", adm}, extra...)
	go func() { done <- run(ctx, args, io.Discard, &errOut) }()
	waitFor(t, sub+" is ready", func() bool {
		select {
		case code := <-done:
			t.Fatalf("%s exited %d before it was ready: %s", sub, code, errOut.String())
		default:
		}
		return answers200("http://" + adm + "/readyz")
	})
	t.Cleanup(cancel)
	return func() {
		t.Helper()
		cancel()
		if code := <-done; code != 0 {
			t.Fatalf("relay exit %d: %s", code, errOut.String())
		}
	}, udp, adm
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T, network string) string {
	t.Helper()
	if network == "udp" {
		return loopback.ClosedUDP(t)
	}
	return loopback.FreeTCP(t)
}

// waitReady waits until url answers 200: a server has started.
func waitReady(t *testing.T, url string) {
	t.Helper()
	waitFor(t, url+" answers 200", func() bool { return answers200(url) })
}

func answers200(url string) bool {
	resp, err := http.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
