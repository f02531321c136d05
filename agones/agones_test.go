package agones

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sidecar implements the documented REST endpoints of the Agones SDK
// server and records what it was told.
type sidecar struct {
	mu        sync.Mutex
	calls     []string
	labels    map[string]string
	state     string
	failReady int
}

func (s *sidecar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var body map[string]any
	if r.Method != http.MethodGet {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "body must be JSON", http.StatusBadRequest)
			return
		}
	}
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	switch r.Method + " " + r.URL.Path {
	case "POST /ready":
		if s.failReady > 0 {
			s.failReady--
			http.Error(w, "sidecar starting", http.StatusServiceUnavailable)
			return
		}
		s.state = "Ready"
	case "POST /allocate":
		s.state = "Allocated"
	case "POST /shutdown":
		s.state = "Shutdown"
	case "POST /health":
	case "PUT /metadata/label":
		k, _ := body["key"].(string)
		v, _ := body["value"].(string)
		if k == "" {
			http.Error(w, "key required", http.StatusBadRequest)
			return
		}
		s.labels["agones.dev/sdk-"+k] = v
	case "GET /gameserver":
		json.NewEncoder(w).Encode(map[string]any{"object_meta": map[string]any{"name": "gs-1"}, "status": map[string]any{"state": s.state}})
		return
	default:
		http.NotFound(w, r)
		return
	}
	w.Write([]byte("{}"))
}

func TestLifecycle(t *testing.T) {
	sc := &sidecar{labels: map[string]string{}, failReady: 2}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	c := &Client{Base: srv.URL}
	var mu sync.Mutex
	rooms := Rooms{Active: 0, Free: 10}
	lc := &Lifecycle{Client: c, Health: 5 * time.Millisecond, Rooms: func() Rooms { mu.Lock(); defer mu.Unlock(); return rooms }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- lc.Run(ctx) }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never: %s (calls %v)", what, sc.calls)
			}
		}
	}
	locked := func(f func() bool) func() bool {
		return func() bool { sc.mu.Lock(); defer sc.mu.Unlock(); return f() }
	}
	waitFor("ready and labelled", locked(func() bool { return sc.state == "Ready" && sc.labels["agones.dev/sdk-tickwire-free-rooms"] == "10" }))
	mu.Lock()
	rooms = Rooms{Active: 1, Free: 9}
	mu.Unlock()
	waitFor("allocated", locked(func() bool {
		return sc.state == "Allocated" && sc.labels["agones.dev/sdk-tickwire-active-rooms"] == "1"
	}))
	if st, err := c.State(ctx); err != nil || st != "Allocated" {
		t.Fatalf("State = %q, %v", st, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	joined := strings.Join(sc.calls, ",")
	if strings.Count(joined, "POST /allocate") != 1 || !strings.Contains(joined, "POST /health") || sc.state != "Shutdown" {
		t.Fatalf("calls %s, state %s", joined, sc.state)
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(EnvPort, "")
	if _, ok := FromEnv(); ok {
		t.Error("no port, yet FromEnv found a sidecar")
	}
	t.Setenv(EnvPort, "9999")
	if c, ok := FromEnv(); !ok || c.Base != "http://localhost:9999" {
		t.Errorf("FromEnv = %+v, %v", c, ok)
	}
}
