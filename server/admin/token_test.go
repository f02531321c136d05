package admin

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRequireToken: with a token, data needs the bearer header; the
// probes and the page do not.
func TestRequireToken(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	h := RequireToken("s3cret", ok)
	for _, c := range []struct {
		path, auth string
		want       int
	}{
		{"/metrics", "", 401},
		{"/api/v1/rooms", "", 401},
		{"/api/v1/rooms", "Bearer wrong", 401},
		{"/api/v1/rooms", "s3cret", 401},
		{"/api/v1/rooms", "Bearer s3cret", 200},
		{"/healthz", "", 200},
		{"/readyz", "", 200},
		{"/dashboard/", "", 200},
		{"/dashboard/app.js", "", 200},
		{"/", "", 200}, // a redirect to the page
	} {
		r := httptest.NewRequest("GET", c.path, nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != c.want {
			t.Errorf("%s with %q: %d, want %d", c.path, c.auth, rec.Code, c.want)
		}
	}
	if RequireToken("", ok) == nil {
		t.Fatal("nil handler")
	}
}
