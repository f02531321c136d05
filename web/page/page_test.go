package page

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRoutes: the page at /, the visitor's Join as JSON, the WebSocket
// handler at /ws, and a clear refusal when no room can be chosen.
func TestRoutes(t *testing.T) {
	ws := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	p := New(Config{WebSocket: ws, Join: func(r *http.Request) (Join, error) {
		if r.URL.Query().Get("full") != "" {
			return Join{}, errors.New("no seat")
		}
		return Join{Room: "r", RoomSize: 3, Arena: 48, ServerKey: "ab"}, nil
	}})
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := get("/"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="tw-stats" hidden`) || !strings.Contains(body, `id="tw-canvas"`) {
		t.Fatalf("/: %s, want the page with tw-stats (hidden) and tw-canvas", resp.Status)
	}
	resp, body := get("/config.json")
	var j Join
	if err := json.Unmarshal([]byte(body), &j); err != nil || resp.StatusCode != http.StatusOK || j != (Join{Room: "r", RoomSize: 3, Arena: 48, ServerKey: "ab"}) {
		t.Fatalf("/config.json: %s %q (%v)", resp.Status, body, err)
	}
	if resp, body := get("/config.json?full=1"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "no seat") {
		t.Fatalf("/config.json with no seat: %s %q", resp.Status, body)
	}
	if resp, _ := get("/ws"); resp.StatusCode != http.StatusTeapot {
		t.Fatalf("/ws: %s, want the WebSocket handler", resp.Status)
	}
	if resp, _ := get("/nothing"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("/nothing: %s", resp.Status)
	}
}
