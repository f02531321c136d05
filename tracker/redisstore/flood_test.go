package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tickwire/tickwire/internal/redistest"
	"github.com/tickwire/tickwire/tracker"
)

// fromAddr is an HTTP client whose connections come from local address
// ip (any 127.0.0.0/8 address is the loopback interface's).
func fromAddr(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}, Timeout: 10 * time.Second}
}

// floodListing is a valid listing of room i.
func floodListing(i int) tracker.Listing {
	return tracker.Listing{Host: fmt.Sprintf("198.51.100.%d:7777", i%250+1), Room: fmt.Sprintf("flood-%d", i),
		ServerKey: fmt.Sprintf("%064x", i%40), Map: tracker.MapMeta{Name: "m", Seats: 2},
		Status: tracker.StatusWaiting, Engine: "tickwire", NetworkModel: "lockstep"}
}

func post(t *testing.T, hc *http.Client, url string, l tracker.Listing) int {
	b, _ := json.Marshal(l)
	resp, err := hc.Post(url+"/v1/listings", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestFloodLeavesARealServerListed: 1,500 valid listings from 25 addresses
// spread over two trackers sharing one Redis (the tracker defaults: 1,000
// listings, 16 per address, 60 requests a minute per address) take at most
// 16 places per address across both trackers, and a real server
// publishing afterwards is listed. The rate limit is shared too: one
// address's 61st request of the minute is refused at whichever tracker.
func TestFloodLeavesARealServerListed(t *testing.T) {
	url := redistest.Start(t)
	ctx := context.Background()
	// The trackers' clock stands still: no token refills while the flood
	// runs, however slowly (Redis's own expiry of the listings is 30 s
	// of wall time away).
	frozen := time.Now()
	var trackers [2]string
	for i := range trackers {
		s, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		dir := tracker.NewDirectory(tracker.Config{Store: s, Now: func() time.Time { return frozen }})
		srv := httptest.NewServer(tracker.NewHandler(dir, tracker.HandlerConfig{}))
		t.Cleanup(srv.Close)
		trackers[i] = srv.URL
	}
	const sources, listings = 25, 1500
	codes := map[int]int{}
	for i := range listings {
		hc := fromAddr(fmt.Sprintf("127.0.0.%d", 2+i%sources))
		codes[post(t, hc, trackers[i%2], floodListing(i))]++
	}
	if codes[http.StatusCreated] != sources*16 || codes[http.StatusConflict] != listings-sources*16 {
		t.Fatalf("flood answers %v: want %d created, the rest 409", codes, sources*16)
	}
	// The 61st request of the minute from one address, through the other
	// tracker, is rate limited (each address has sent 60 across both).
	if code := post(t, fromAddr("127.0.0.2"), trackers[1], floodListing(0)); code != http.StatusTooManyRequests {
		t.Fatalf("an address's 61st request across two trackers: %d, want 429", code)
	}
	real := tracker.Listing{Host: "203.0.113.9:7777", Room: "real", ServerKey: fmt.Sprintf("%064x", 999),
		Map: tracker.MapMeta{Name: "m", Seats: 2}, Status: tracker.StatusWaiting, Engine: "tickwire", NetworkModel: "lockstep"}
	c, _ := tracker.NewClient(trackers[0])
	if _, err := c.Publish(ctx, real); err != nil {
		t.Fatalf("a real server after the flood: %v", err)
	}
	c, _ = tracker.NewClient(trackers[1])
	got, err := c.Browse(ctx, tracker.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range got {
		found = found || l.Room == "real"
	}
	if !found || len(got) != sources*16+1 {
		t.Fatalf("browse after the flood: %d listings, real server listed %v", len(got), found)
	}
}

// TestReadyzFollowsRedis: the tracker's /readyz answers 503 naming the
// store while its Redis is out of reach.
func TestReadyzFollowsRedis(t *testing.T) {
	url, stop := redistest.StartStoppable(t)
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := tracker.NewHandler(tracker.NewDirectory(tracker.Config{Store: s}), tracker.HandlerConfig{})
	probe := func() (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return w.Code, w.Body.String()
	}
	if code, body := probe(); code != http.StatusOK {
		t.Fatalf("/readyz with Redis up: %d %s", code, body)
	}
	stop()
	if code, body := probe(); code != http.StatusServiceUnavailable || !bytes.Contains([]byte(body), []byte("store unreachable")) {
		t.Fatalf("/readyz with Redis down: %d %s", code, body)
	}
}
