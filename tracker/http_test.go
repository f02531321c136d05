package tracker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func validBody() string {
	b, _ := json.Marshal(sample("r"))
	return string(b)
}

func do(t *testing.T, h http.Handler, method, path, body, token string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = "192.0.2.1:5555"
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var out map[string]any
	json.Unmarshal(w.Body.Bytes(), &out)
	return w, out
}

func TestHTTPMalformed(t *testing.T) {
	h := NewHandler(NewDirectory(Config{Now: newClock().now}), HandlerConfig{Rate: Rate{N: 1000, Per: time.Second}})
	cases := []struct {
		name, method, path, body string
		code                     int
		mention                  string
	}{
		{"not JSON", "POST", "/v1/listings", "{", 400, "malformed JSON"},
		{"unknown field", "POST", "/v1/listings", strings.Replace(validBody(), `"host"`, `"hots":1,"host"`, 1), 400, "hots"},
		{"two values", "POST", "/v1/listings", validBody() + validBody(), 400, "more than one"},
		{"invalid field", "POST", "/v1/listings", strings.Replace(validBody(), `"waiting"`, `"open"`, 1), 400, "status"},
		{"id from client", "POST", "/v1/listings", strings.Replace(validBody(), `"host"`, `"id":"x","host"`, 1), 400, "id"},
		{"wrong type", "POST", "/v1/listings", strings.Replace(validBody(), `"seats":4`, `"seats":"4"`, 1), 400, "seats"},
		{"too large", "POST", "/v1/listings", `{"host":"` + strings.Repeat("a", maxBodyBytes) + `"}`, 413, "larger than"},
		{"no token", "PUT", "/v1/listings/abc", validBody(), 404, "no such listing"},
		{"unknown filter", "GET", "/v1/listings?colour=red", "", 400, "colour"},
		{"bad free seats", "GET", "/v1/listings?free_seats=-1", "", 400, "free_seats"},
		{"bad code", "GET", "/v1/join-codes/TICK-0O0O", "", 400, "join code"},
		{"unknown code", "GET", "/v1/join-codes/TICK-7K3M", "", 404, "join code"},
		{"code for nothing", "POST", "/v1/join-codes", `{"host":""}`, 400, "host"},
		{"no such endpoint", "GET", "/v2/anything", "", 404, "no such endpoint"},
	}
	for _, c := range cases {
		w, out := do(t, h, c.method, c.path, c.body, "")
		msg, _ := out["error"].(string)
		if w.Code != c.code || !strings.Contains(msg, c.mention) {
			t.Errorf("%s: %d %q, want %d mentioning %q", c.name, w.Code, msg, c.code, c.mention)
		}
	}
}

func TestHTTPLifecycle(t *testing.T) {
	h := NewHandler(NewDirectory(Config{Now: newClock().now}), HandlerConfig{})
	w, out := do(t, h, "POST", "/v1/listings", validBody(), "")
	if w.Code != 201 {
		t.Fatalf("publish: %d %v", w.Code, out)
	}
	id, tok := out["id"].(string), out["token"].(string)
	if w, _ := do(t, h, "PUT", "/v1/listings/"+id, validBody(), "wrong"); w.Code != 401 {
		t.Errorf("update with a wrong token: %d", w.Code)
	}
	if w, out := do(t, h, "PUT", "/v1/listings/"+id, validBody(), tok); w.Code != 200 || out["token"] != nil {
		t.Errorf("heartbeat: %d %v", w.Code, out)
	}
	w, out = do(t, h, "GET", "/v1/listings?network_model=lockstep&free_seats=1", "", "")
	if ls, _ := out["listings"].([]any); w.Code != 200 || len(ls) != 1 {
		t.Errorf("browse: %d %v", w.Code, out)
	}
	if w, _ := do(t, h, "DELETE", "/v1/listings/"+id, "", tok); w.Code != 204 {
		t.Errorf("unpublish: %d", w.Code)
	}
	w, _ = do(t, h, "GET", "/metrics", "", "")
	body := w.Body.String()
	for _, m := range []string{`tickwire_tracker_requests_total{code="201",route="publish"} 1`, "tickwire_tracker_listings 0"} {
		if !strings.Contains(body, m) {
			t.Errorf("/metrics lacks %q", m)
		}
	}
}

func TestHTTPRateLimit(t *testing.T) {
	clk := newClock()
	h := NewHandler(NewDirectory(Config{Now: clk.now}), HandlerConfig{Rate: Rate{N: 10, Per: time.Minute}})
	for i := range 10 {
		if w, _ := do(t, h, "GET", "/v1/listings", "", ""); w.Code != 200 {
			t.Fatalf("request %d refused: %d", i, w.Code)
		}
	}
	w, out := do(t, h, "GET", "/v1/listings", "", "")
	if w.Code != 429 || w.Header().Get("Retry-After") != "6" || !strings.Contains(out["error"].(string), "10/min") {
		t.Fatalf("11th request: %d, Retry-After %q, %v", w.Code, w.Header().Get("Retry-After"), out)
	}
	// Another address is not affected.
	r := httptest.NewRequest("GET", "/v1/listings", nil)
	r.RemoteAddr = "192.0.2.2:1"
	rw := httptest.NewRecorder()
	h.ServeHTTP(rw, r)
	if rw.Code != 200 {
		t.Fatalf("another address refused: %d", rw.Code)
	}
	clk.advance(6 * time.Second)
	if w, _ := do(t, h, "GET", "/v1/listings", "", ""); w.Code != 200 {
		t.Fatalf("after refill: %d", w.Code)
	}
}

// TestRateLimiterBounded: a flood from many addresses never grows the
// limiter past its bound.
func TestRateLimiterBounded(t *testing.T) {
	l := NewLimiter(Rate{N: 2, Per: time.Minute}, 100)
	now := time.Unix(0, 0)
	for i := range 10_000 {
		l.Allow(string(rune(i)), now)
		l.Allow(string(rune(i)), now)
	}
	if len(l.buckets) > 100 {
		t.Fatalf("%d buckets", len(l.buckets))
	}
}

func TestFederatedBrowse(t *testing.T) {
	ctx := context.Background()
	var srvs []*httptest.Server
	for range 3 {
		d := NewDirectory(Config{})
		s := httptest.NewServer(NewHandler(d, HandlerConfig{}))
		t.Cleanup(s.Close)
		srvs = append(srvs, s)
	}
	cs, err := Clients([]string{srvs[0].URL, srvs[1].URL, srvs[2].URL})
	if err != nil {
		t.Fatal(err)
	}
	// The same room at trackers 0 and 1, another only at 1; tracker 2 is down.
	for _, i := range []int{0, 1} {
		if _, err := cs[i].Publish(ctx, sample("shared")); err != nil {
			t.Fatal(err)
		}
	}
	cs[1].Publish(ctx, sample("only1"))
	srvs[2].Close()
	ls, failed := Browse(ctx, cs, Filter{})
	if len(ls) != 2 || ls[0].Room != "shared" || ls[0].Source != srvs[0].URL || ls[1].Room != "only1" || ls[1].Source != srvs[1].URL {
		t.Fatalf("merged = %+v", ls)
	}
	if len(failed) != 1 || failed[0].URL != srvs[2].URL {
		t.Fatalf("failed = %v", failed)
	}
}

func TestClientTrust(t *testing.T) {
	for _, u := range []string{"http://tracker.example.org", "http://10.0.0.1:80", "ftp://x", "http://[::2]/"} {
		if _, err := NewClient(u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	if _, err := NewClient("http://tracker.example.org"); !errors.Is(err, ErrInsecureURL) {
		t.Errorf("plain http: %v", err)
	}
	for _, u := range []string{"https://tracker.example.org/track", "http://127.0.0.1:8080", "http://localhost", "http://[::1]:9"} {
		if _, err := NewClient(u); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	many := make([]string, MaxTrackers+1)
	for i := range many {
		many[i] = "https://t.example.org"
	}
	if _, err := Clients(many); !errors.Is(err, ErrTooManyURLs) {
		t.Errorf("11 trackers: %v", err)
	}
}

func TestPublisher(t *testing.T) {
	ctx := context.Background()
	d := NewDirectory(Config{})
	srv := httptest.NewServer(NewHandler(d, HandlerConfig{Rate: Rate{N: 1000, Per: time.Second}}))
	defer srv.Close()
	c, _ := NewClient(srv.URL)
	rooms := []Listing{sample("a"), sample("b")}
	p := &Publisher{Clients: []*Client{c}, Rooms: func() []Listing { return rooms }}
	if err := p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ls, _ := d.Browse(ctx, Filter{}); len(ls) != 2 {
		t.Fatalf("published %d", len(ls))
	}
	rooms = rooms[1:]
	rooms[0].Status = StatusInProgress
	if err := p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ls, _ := d.Browse(ctx, Filter{})
	if len(ls) != 1 || ls[0].Room != "b" || ls[0].Status != StatusInProgress {
		t.Fatalf("after sync: %+v", ls)
	}
	// The tracker loses the listing (a restart): the next sync publishes again.
	d.cfg.Store = &MemoryStore{}
	if err := p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ls, _ := d.Browse(ctx, Filter{}); len(ls) != 1 {
		t.Fatalf("not republished: %+v", ls)
	}
	run, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { p.Run(run); close(done) }()
	cancel()
	<-done
	if ls, _ := d.Browse(ctx, Filter{}); len(ls) != 0 {
		t.Fatalf("Run left listings behind: %+v", ls)
	}
}

// FuzzHandler: any request gets a 2xx or 4xx answer with a JSON body, never
// a 5xx or a panic, and the directory stays within its bound.
func FuzzHandler(f *testing.F) {
	f.Add("POST", "/v1/listings", validBody(), "")
	f.Add("PUT", "/v1/listings/x", validBody(), "t")
	f.Add("GET", "/v1/listings?map=a&free_seats=2", "", "")
	f.Add("POST", "/v1/join-codes", `{"host":"127.0.0.1:1","room":"r","ttl_seconds":5}`, "")
	f.Add("GET", "/v1/join-codes/tick7k3m", "", "")
	f.Add("DELETE", "/v1/listings/x", "", "t")
	d := NewDirectory(Config{MaxListings: 50})
	h := NewHandler(d, HandlerConfig{Rate: Rate{N: 1 << 30, Per: time.Second}})
	f.Fuzz(func(t *testing.T, method, path, body, token string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t#") {
			return
		}
		r, err := http.NewRequest(method, "http://tracker"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		r.RemoteAddr = "192.0.2.1:1"
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		if ls, _ := d.Browse(context.Background(), Filter{}); len(ls) > 50 {
			t.Fatalf("%d listings", len(ls))
		}
		io.Copy(io.Discard, w.Body)
	})
}

// TestClientAddr: X-Forwarded-For counts only from a trusted proxy, and
// then its rightmost address not itself a trusted proxy is the client
// (what the client wrote on the left is ignored).
func TestClientAddr(t *testing.T) {
	trusted, err := ParseCIDRs("10.0.0.0/8, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		remote, xff, want string
	}{
		{"203.0.113.5:1000", "", "203.0.113.5"},
		{"203.0.113.5:1000", "1.2.3.4", "203.0.113.5"},                // not from a proxy: header ignored
		{"10.1.2.3:1000", "198.51.100.9", "198.51.100.9"},             // the balancer names the client
		{"10.1.2.3:1000", "6.6.6.6, 198.51.100.9", "198.51.100.9"},    // a forged leftmost entry
		{"10.1.2.3:1000", "198.51.100.9, 10.9.9.9", "198.51.100.9"},   // two proxies
		{"192.0.2.7:1000", "198.51.100.9, 192.0.2.7", "198.51.100.9"}, // a single trusted address
		{"10.1.2.3:1000", "", "10.1.2.3"},                             // no header: the proxy itself
		{"10.1.2.3:1000", "garbage", "10.1.2.3"},                      // unreadable: stop at the proxy
		{"10.1.2.3:1000", "::ffff:198.51.100.9", "198.51.100.9"},      // IPv4-mapped
		{"[2001:db8::1]:1000", "198.51.100.9", "2001:db8::1"},         // untrusted IPv6 peer
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := ClientAddr(r, trusted); got != c.want {
			t.Errorf("from %s with X-Forwarded-For %q: %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
	if _, err := ParseCIDRs("10.0.0.0/33"); err == nil {
		t.Error("a bad CIDR parsed")
	}
}

// TestTrustedProxyRateLimit: behind a trusted balancer every player has
// their own bucket; without the setting they would all share the
// balancer's.
func TestTrustedProxyRateLimit(t *testing.T) {
	proxies, _ := ParseCIDRs("192.0.2.1")
	h := NewHandler(NewDirectory(Config{Now: newClock().now}), HandlerConfig{Rate: Rate{N: 2, Per: time.Minute}, TrustedProxies: proxies})
	browse := func(client string) int {
		r := httptest.NewRequest(http.MethodGet, "/v1/listings", nil)
		r.RemoteAddr = "192.0.2.1:5555"
		r.Header.Set("X-Forwarded-For", client)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for i := range 10 {
		if code := browse(fmt.Sprintf("198.51.100.%d", i)); code != http.StatusOK {
			t.Fatalf("player %d behind the balancer: %d", i, code)
		}
	}
	browse("198.51.100.0")
	if code := browse("198.51.100.0"); code != http.StatusTooManyRequests {
		t.Fatalf("one player's third request: %d, want 429", code)
	}
}

// TestPublisherTokens: with publisher tokens a publish needs one (401
// without, or with a wrong one); browsing stays open; a publisher with a
// token is not held to the per-address cap.
func TestPublisherTokens(t *testing.T) {
	h := NewHandler(NewDirectory(Config{Now: newClock().now, MaxPerPublisher: 1}),
		HandlerConfig{Rate: Rate{N: 1000, Per: time.Second}, PublisherTokens: []string{"s3cret", "other"}})
	for _, tok := range []string{"", "wrong", "s3cre"} {
		if w, out := do(t, h, http.MethodPost, "/v1/listings", validBody(), tok); w.Code != http.StatusUnauthorized || !strings.Contains(fmt.Sprint(out["error"]), "publisher token") {
			t.Fatalf("publish with token %q: %d %v", tok, w.Code, out)
		}
	}
	for i := range 3 {
		b, _ := json.Marshal(sample(fmt.Sprint("r", i)))
		if w, out := do(t, h, http.MethodPost, "/v1/listings", string(b), "s3cret"); w.Code != http.StatusCreated {
			t.Fatalf("publish %d with the token: %d %v", i, w.Code, out)
		}
	}
	if w, _ := do(t, h, http.MethodGet, "/v1/listings", "", ""); w.Code != http.StatusOK {
		t.Fatalf("browse without a token: %d", w.Code)
	}
}

// TestPerAddressCap: one address's listings past the cap are refused
// with 409 naming the source; another address still publishes.
func TestPerAddressCap(t *testing.T) {
	h := NewHandler(NewDirectory(Config{Now: newClock().now, MaxPerPublisher: 2}), HandlerConfig{Rate: Rate{N: 1000, Per: time.Second}})
	for i := range 3 {
		b, _ := json.Marshal(sample(fmt.Sprint("r", i)))
		w, out := do(t, h, http.MethodPost, "/v1/listings", string(b), "")
		if want := map[bool]int{true: http.StatusCreated, false: http.StatusConflict}[i < 2]; w.Code != want {
			t.Fatalf("publish %d: %d %v", i, w.Code, out)
		}
		if i == 2 && !strings.Contains(fmt.Sprint(out["error"]), "source") {
			t.Fatalf("refusal says %v", out)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/v1/listings", strings.NewReader(validBody()))
	r.RemoteAddr = "192.0.2.99:1"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusCreated {
		t.Fatalf("another address: %d", w.Code)
	}
}

// TestRefusalLogBounded: refused publishes are counted each, and logged
// at most once a second per reason.
func TestRefusalLogBounded(t *testing.T) {
	clk := newClock()
	var buf strings.Builder
	h := NewHandler(NewDirectory(Config{Now: clk.now, MaxPerPublisher: 1}),
		HandlerConfig{Rate: Rate{N: 1000, Per: time.Second}, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	for i := range 6 {
		b, _ := json.Marshal(sample(fmt.Sprint("r", i)))
		do(t, h, http.MethodPost, "/v1/listings", string(b), "")
		if i == 3 {
			clk.advance(time.Second)
		}
	}
	if n := strings.Count(buf.String(), "publish refused"); n != 2 {
		t.Fatalf("%d log lines for 5 refusals over two seconds, want 2:\n%s", n, buf.String())
	}
	w, _ := do(t, h, http.MethodGet, "/metrics", "", "")
	if !strings.Contains(w.Body.String(), `tickwire_tracker_publishes_refused_total{reason="source_full"} 5`) {
		t.Fatalf("metrics:\n%s", w.Body.String())
	}
}
