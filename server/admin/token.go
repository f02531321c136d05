package admin

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// RequireToken returns h asking for "Authorization: Bearer <token>" on
// every path but /healthz, /readyz and the dashboard's page (/dashboard/,
// which holds no data: it sends the token with its own requests). An
// empty token returns h unchanged.
func RequireToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		open := r.URL.Path == "/" || r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.URL.Path == "/dashboard" || strings.HasPrefix(r.URL.Path, "/dashboard/")
		if !open && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tickwire"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
