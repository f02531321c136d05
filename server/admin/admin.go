package admin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
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

	mu     sync.Mutex
	checks []check
}

// check is a readiness condition of /readyz.
type check struct {
	name string
	err  func() error
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
		if err := s.Ready(); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg}))
	return s
}

// SetReady sets what /readyz answers when every check passes.
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// AddCheck adds a readiness condition: /readyz answers 503 naming it
// while err returns an error (a store out of reach, records that cannot
// be written, …). err is called on every probe and must be cheap and safe
// for concurrent use.
func (s *Server) AddCheck(name string, err func() error) {
	s.mu.Lock()
	s.checks = append(s.checks, check{name, err})
	s.mu.Unlock()
}

// Ready is nil when /readyz answers 200: SetReady(true) and no check
// fails; otherwise why not.
func (s *Server) Ready() error {
	if !s.ready.Load() {
		return errNotReady
	}
	s.mu.Lock()
	checks := s.checks
	s.mu.Unlock()
	for _, c := range checks {
		if err := c.err(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

var errNotReady = errors.New("not listening or draining")

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
