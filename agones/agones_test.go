package agones

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// flaky is a transport to the sidecar that can be cut: while down, every
// call fails as if nothing listened, and it counts the attempts.
type flaky struct {
	mu       sync.Mutex
	down     bool
	attempts int
}

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	down := f.down
	f.attempts++
	f.mu.Unlock()
	if down {
		return nil, errors.New("connect: connection refused")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (f *flaky) set(down bool) { f.mu.Lock(); f.down = down; f.mu.Unlock() }
func (f *flaky) tries() int    { f.mu.Lock(); defer f.mu.Unlock(); return f.attempts }

// fleet runs a Lifecycle against a fake sidecar; the test sets the rooms.
type fleet struct {
	t     *testing.T
	sc    *sidecar
	net   *flaky
	lc    *Lifecycle
	mu    sync.Mutex
	rooms Rooms
	stop  func()
}

func startFleet(t *testing.T, after AfterMatch, down bool) *fleet {
	f := &fleet{t: t, sc: &sidecar{labels: map[string]string{}, failReady: 2}, net: &flaky{down: down}, rooms: Rooms{Free: 10}}
	srv := httptest.NewServer(f.sc)
	t.Cleanup(srv.Close)
	f.lc = &Lifecycle{Client: &Client{Base: srv.URL, HTTP: &http.Client{Transport: f.net}}, Health: 2 * time.Millisecond,
		Backoff: [2]time.Duration{time.Millisecond, 8 * time.Millisecond}, AfterMatch: after,
		Rooms: func() Rooms { f.mu.Lock(); defer f.mu.Unlock(); return f.rooms }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.lc.Run(ctx); close(done) }()
	f.stop = func() { cancel(); <-done }
	t.Cleanup(f.stop)
	return f
}

func (f *fleet) setRooms(r Rooms) { f.mu.Lock(); f.rooms = r; f.mu.Unlock() }

// waitFor polls cond (under the sidecar's lock) until it holds; the
// deadline only bounds a failing test.
func (f *fleet) waitFor(what string, cond func(*sidecar) bool) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		f.sc.mu.Lock()
		ok, calls := cond(f.sc), strings.Join(f.sc.calls, ",")
		f.sc.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("never: %s (calls %s)", what, calls)
		}
	}
}

func count(call string) func(*sidecar) int {
	return func(s *sidecar) int { return strings.Count(strings.Join(s.calls, ","), call) }
}

// TestLifecycleReuse: a server that allocated itself for a match marks
// itself Ready again once no room plays, for every match in turn, so
// that Agones can scale it down or allocate it anew.
func TestLifecycleReuse(t *testing.T) {
	f := startFleet(t, Reuse, false)
	readies, allocs := count("POST /ready"), count("POST /allocate")
	f.waitFor("ready and labelled", func(s *sidecar) bool {
		return s.state == "Ready" && s.labels["agones.dev/sdk-tickwire-free-rooms"] == "10"
	})
	healths := count("POST /health")
	f.waitFor("health pings with the rooms unchanged", func(s *sidecar) bool { return healths(s) >= 5 })
	f.sc.mu.Lock()
	labels := count("PUT /metadata/label")(f.sc)
	f.sc.mu.Unlock()
	if labels != 2 {
		t.Fatalf("labels sent %d times with the rooms unchanged, want once each", labels)
	}
	for match := 1; match <= 3; match++ {
		f.setRooms(Rooms{Active: 1, Free: 9, Started: uint64(match)})
		f.waitFor("allocated", func(s *sidecar) bool {
			return s.state == "Allocated" && allocs(s) == match && s.labels["agones.dev/sdk-tickwire-active-rooms"] == "1"
		})
		if st, err := f.lc.Client.State(context.Background()); err != nil || st != "Allocated" {
			t.Fatalf("State = %q, %v", st, err)
		}
		f.setRooms(Rooms{Active: 0, Free: 10, Started: uint64(match)})
		f.waitFor("ready again after the match", func(s *sidecar) bool {
			return s.state == "Ready" && readies(s) == 2+match+1 // two refused at start, the first, one per match
		})
	}
	f.stop()
	f.sc.mu.Lock()
	defer f.sc.mu.Unlock()
	if n := count("POST /shutdown")(f.sc); n != 0 {
		t.Fatalf("a reused server asked for shutdown %d times", n)
	}
	if err := f.lc.Err(); err != nil {
		t.Fatalf("Err = %v after a healthy run", err)
	}
}

// TestLifecycleOneMatchPerServer: with AfterMatch Shutdown the server
// allocates itself, drains and asks for its shutdown once its match ended
// (even one that began and ended between two looks), and never becomes
// Ready again.
func TestLifecycleOneMatchPerServer(t *testing.T) {
	f := startFleet(t, Shutdown, false)
	var drained sync.WaitGroup
	drained.Add(1)
	f.lc.Drain = drained.Done // called exactly once, or the WaitGroup panics
	f.waitFor("ready", func(s *sidecar) bool { return s.state == "Ready" })
	// A match that started and ended between two looks (Started grew)
	// is the server's match all the same.
	f.setRooms(Rooms{Active: 0, Free: 10, Started: 1})
	f.waitFor("shut down", func(s *sidecar) bool { return s.state == "Shutdown" })
	drained.Wait()
	f.waitFor("health pings after the shutdown", func(s *sidecar) bool {
		i := strings.LastIndex(strings.Join(s.calls, ","), "POST /shutdown")
		return strings.Contains(strings.Join(s.calls, ",")[i:], "POST /health")
	})
	f.stop()
	f.sc.mu.Lock()
	defer f.sc.mu.Unlock()
	if n, r, a := count("POST /shutdown")(f.sc), count("POST /ready")(f.sc), count("POST /allocate")(f.sc); n != 1 || r != 3 || a != 1 {
		t.Fatalf("%d shutdowns, %d readies (2 refused), %d allocations: %v", n, r, a, f.sc.calls)
	}
}

// TestLifecycleRetriesUnreachableSidecar: while the sidecar cannot be
// reached the lifecycle keeps retrying (well past the 30 s the old loop
// gave up after, in backoff steps) and Err says why, so /readyz fails; once
// the sidecar answers, the server becomes Ready and Err clears; cut again,
// Err returns.
func TestLifecycleRetriesUnreachableSidecar(t *testing.T) {
	f := startFleet(t, Reuse, true)
	for f.net.tries() < 20 {
		if f.lc.Err() == nil {
			t.Fatal("Err is nil while the sidecar is unreachable")
		}
		time.Sleep(time.Millisecond)
	}
	if err := f.lc.Err(); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Err = %v, want the connection's failure", err)
	}
	f.net.set(false)
	f.waitFor("ready once the sidecar answers", func(s *sidecar) bool { return s.state == "Ready" })
	for deadline := time.Now().Add(10 * time.Second); f.lc.Err() != nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Err = %v with the sidecar answering", f.lc.Err())
		}
	}
	f.net.set(true)
	for deadline := time.Now().Add(10 * time.Second); f.lc.Err() == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Err stays nil with the sidecar gone")
		}
	}
}

// TestLifecycleErrBeforeRun: a lifecycle that has not reached the sidecar
// is not ready.
func TestLifecycleErrBeforeRun(t *testing.T) {
	if err := (&Lifecycle{}).Err(); !errors.Is(err, ErrNotReady) {
		t.Fatalf("Err = %v", err)
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

// TestBackoff: the wait after each failure in a row doubles from the
// first bound up to the second, and the defaults are 250 ms and 30 s.
func TestBackoff(t *testing.T) {
	l := &Lifecycle{Backoff: [2]time.Duration{time.Second, 5 * time.Second}}
	for n, want := range []time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 5 * time.Second, 5: 5 * time.Second} {
		if n > 0 && l.backoff(n) != want {
			t.Errorf("after %d failures: %v, want %v", n, l.backoff(n), want)
		}
	}
	var def Lifecycle
	if def.backoff(1) != 250*time.Millisecond || def.backoff(100) != 30*time.Second || def.backoff(8) != 30*time.Second || def.backoff(7) != 16*time.Second {
		t.Errorf("defaults: %v, %v, %v, %v", def.backoff(1), def.backoff(7), def.backoff(8), def.backoff(100))
	}
	var lines []int
	for n := 1; n <= 100; n++ {
		if logged(n) {
			lines = append(lines, n)
		}
	}
	if fmt.Sprint(lines) != "[1 2 4 8 16 32 64]" {
		t.Errorf("failures logged: %v", lines)
	}
}
