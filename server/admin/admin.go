package admin

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tickwire/tickwire/metrics"
)

// Stats is a snapshot of the relay's figures. Counters only grow over the
// life of the relay.
type Stats struct {
	ActiveGames int
	Players     int
	BytesIn     uint64
	BytesOut    uint64
	// Extra are further series: labelled figures of the server (games by
	// network model, refused joins by reason, …) and the network models'
	// own metrics (lockstep's late orders, strikes, broadcast lateness, …
	// under their tickwire_relay_ names).
	Extra []Metric
	// SendErrors counts messages the relay could not send, by cause
	// (the label of tickwire_relay_send_errors_total).
	SendErrors map[string]uint64

	// HandshakesRefused counts secure handshakes refused, by reason
	// (token_expired, server_full, …).
	HandshakesRefused map[string]uint64
	// TokenRefusals counts joins refused for their connect token, by
	// reason (missing, wrong_room).
	TokenRefusals map[string]uint64
}

// Histogram is a cumulative histogram in seconds: Counts[i] observations
// were at most Bounds[i]; Count and Sum are over every observation (the
// +Inf bucket is Count).
type Histogram = metrics.Cumulative

// Source supplies the snapshot a scrape exposes. It is called from HTTP
// handler goroutines and must be safe for concurrent use.
type Source interface {
	AdminStats() Stats
}

// SourceFunc adapts a function to Source.
type SourceFunc func() Stats

// AdminStats implements Source.
func (f SourceFunc) AdminStats() Stats { return f() }

// Server serves the admin endpoints.
type Server struct {
	reg   *prometheus.Registry
	ready atomic.Bool
	mux   *http.ServeMux
	token string
}

// New returns a server exposing src. It starts not ready.
func New(src Source) *Server {
	s := &Server{reg: prometheus.NewRegistry(), mux: http.NewServeMux()}
	s.reg.MustRegister(
		newCollector(src),
		extraCollector{src},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok\n"))
	})
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !s.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg}))
	return s
}

// SetReady sets what /readyz answers.
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// Mux is the server's request multiplexer, to add endpoints to (the
// dashboard).
func (s *Server) Mux() *http.ServeMux { return s.mux }

// SetToken makes every endpoint but the probes and the dashboard's page
// ask for "Authorization: Bearer <token>" (see RequireToken); "" asks
// for none. Call it before Serve.
func (s *Server) SetToken(token string) { s.token = token }

// Handler returns the HTTP handler of the endpoints.
func (s *Server) Handler() http.Handler { return RequireToken(s.token, s.mux) }

// Serve serves on ln until ctx ends, then shuts down gracefully (waiting
// up to five seconds for requests in progress). It returns nil after a
// shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
