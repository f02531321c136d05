package tracker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// HandlerConfig configures the HTTP API. The zero value is usable.
type HandlerConfig struct {
	// Rate bounds each client address's requests (publish, browse, join
	// codes); heartbeats and unpublishes with a listing's token get ten
	// times as much. Zero means 60/min.
	Rate Rate
	// MaxClients bounds the addresses the rate limiter remembers; 0
	// means 100,000.
	MaxClients int
	// Ready reports readiness for /readyz; nil means always ready.
	Ready func() bool
	// Logger receives internal errors (a store that fails), at most one
	// line a second; nil discards.
	Logger *slog.Logger
}

// Handler serves the tracker's HTTP API (see the package doc).
type Handler struct {
	dir        *Directory
	cfg        HandlerConfig
	mux        *http.ServeMux
	limit      *Limiter
	heartbeats *Limiter
	now        func() time.Time

	lastLog atomic.Int64 // unix nanoseconds of the last internal error logged

	requests    *prometheus.CounterVec
	rateLimited prometheus.Counter
	codes       *prometheus.CounterVec
}

// NewHandler returns the API over dir.
func NewHandler(dir *Directory, cfg HandlerConfig) *Handler {
	if cfg.Rate.N <= 0 || cfg.Rate.Per <= 0 {
		cfg.Rate = Rate{N: 60, Per: time.Minute}
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = 100_000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{dir: dir, cfg: cfg, mux: http.NewServeMux(), now: dir.cfg.Now,
		limit:      NewLimiter(cfg.Rate, cfg.MaxClients),
		heartbeats: NewLimiter(Rate{N: cfg.Rate.N * 10, Per: cfg.Rate.Per}, cfg.MaxClients),
	}
	reg := prometheus.NewRegistry()
	h.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tickwire_tracker_requests_total",
		Help: "API requests by route and status code."}, []string{"route", "code"})
	h.rateLimited = prometheus.NewCounter(prometheus.CounterOpts{Name: "tickwire_tracker_rate_limited_total",
		Help: "Requests refused by the per-address rate limit."})
	h.codes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tickwire_tracker_join_codes_total",
		Help: "Join codes issued and resolutions, by result."}, []string{"result"})
	listings := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tickwire_tracker_listings",
		Help: "Unexpired listings."}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		l, err := dir.Browse(ctx, Filter{})
		if err != nil {
			return math.NaN()
		}
		return float64(len(l))
	})
	reg.MustRegister(h.requests, h.rateLimited, h.codes, listings)

	h.route("POST /v1/listings", "publish", h.limit, h.publish)
	h.route("PUT /v1/listings/{id}", "update", h.heartbeats, h.update)
	h.route("DELETE /v1/listings/{id}", "unpublish", h.heartbeats, h.unpublish)
	h.route("GET /v1/listings", "browse", h.limit, h.browse)
	h.route("POST /v1/join-codes", "register_code", h.limit, h.registerCode)
	h.route("GET /v1/join-codes/{code}", "resolve_code", h.limit, h.resolveCode)
	h.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	h.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if cfg.Ready != nil && !cfg.Ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	h.mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// statusWriter remembers the status code for the request counter.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

func (h *Handler) route(pattern, name string, lim *Limiter, fn func(http.ResponseWriter, *http.Request) error) {
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		defer func() { h.requests.WithLabelValues(name, strconv.Itoa(sw.code)).Inc() }()
		if ok, wait := lim.Allow(clientAddr(r), h.now()); !ok {
			h.rateLimited.Inc()
			sw.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
			writeError(sw, http.StatusTooManyRequests, "rate limited: at most "+lim.rate.String()+" per address")
			return
		}
		r.Body = http.MaxBytesReader(sw, r.Body, maxBodyBytes)
		if err := fn(sw, r); err != nil {
			code, msg := errorStatus(err)
			if code == http.StatusInternalServerError {
				h.logInternal(name, err)
			}
			writeError(sw, code, msg)
		}
	})
}

func (h *Handler) logInternal(route string, err error) {
	now := h.now().UnixNano()
	if last := h.lastLog.Load(); now-last >= int64(time.Second) && h.lastLog.CompareAndSwap(last, now) {
		h.cfg.Logger.Error("tracker request failed", "route", route, "err", err)
	}
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func errorStatus(err error) (int, string) {
	var fe *FieldError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", maxBodyBytes)
	case errors.As(err, &fe):
		return http.StatusBadRequest, "invalid " + fe.Error()
	case errors.Is(err, errBadJSON), errors.Is(err, ErrBadCode):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, ErrBadToken):
		return http.StatusUnauthorized, err.Error()
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCodeNotFound):
		return http.StatusNotFound, err.Error()
	case errors.Is(err, ErrFull):
		return http.StatusConflict, err.Error()
	}
	return http.StatusInternalServerError, "internal error"
}

var errBadJSON = errors.New("malformed JSON body")

// decode reads exactly one JSON object into v, refusing unknown fields.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return fmt.Errorf("%w: %v", errBadJSON, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value", errBadJSON)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func bearer(r *http.Request) string {
	t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(t)
}

func (h *Handler) publish(w http.ResponseWriter, r *http.Request) error {
	var l Listing
	if err := decode(r, &l); err != nil {
		return err
	}
	if l.ID != "" || !l.Expires.IsZero() || l.Source != "" {
		return fieldError("id", "id, expires and source are set by the tracker")
	}
	p, err := h.dir.Publish(r.Context(), l)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, p)
	return nil
}

func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	var l Listing
	if err := decode(r, &l); err != nil {
		return err
	}
	id := r.PathValue("id")
	if l.ID != "" && l.ID != id {
		return fieldError("id", "does not match the URL")
	}
	l.Expires, l.Source = time.Time{}, ""
	p, err := h.dir.Update(r.Context(), id, bearer(r), l)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

func (h *Handler) unpublish(w http.ResponseWriter, r *http.Request) error {
	if err := h.dir.Unpublish(r.Context(), r.PathValue("id"), bearer(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// filterFrom reads a browse filter from query parameters, refusing
// unknown ones.
func filterFrom(r *http.Request) (Filter, error) {
	var f Filter
	fields := map[string]*string{"map": &f.Map, "mod": &f.Mod, "version": &f.Version, "network_model": &f.NetworkModel,
		"status": &f.Status, "region": &f.Region, "engine": &f.Engine}
	for k, v := range r.URL.Query() {
		if len(v) != 1 || len(v[0]) > maxString {
			return f, fieldError(k, "give it once, at most %d bytes", maxString)
		}
		if k == "free_seats" {
			n, err := strconv.Atoi(v[0])
			if err != nil || n < 0 || n > maxPlayers {
				return f, fieldError(k, "must be 0..%d", maxPlayers)
			}
			f.FreeSeats = n
			continue
		}
		p, ok := fields[k]
		if !ok {
			return f, fieldError(k, "unknown filter")
		}
		*p = v[0]
	}
	return f, nil
}

func (h *Handler) browse(w http.ResponseWriter, r *http.Request) error {
	f, err := filterFrom(r)
	if err != nil {
		return err
	}
	ls, err := h.dir.Browse(r.Context(), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string][]Listing{"listings": ls})
	return nil
}

func (h *Handler) registerCode(w http.ResponseWriter, r *http.Request) error {
	var req CodeRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, err := h.dir.RegisterCode(r.Context(), req)
	if err != nil {
		return err
	}
	h.codes.WithLabelValues("issued").Inc()
	writeJSON(w, http.StatusCreated, c)
	return nil
}

func (h *Handler) resolveCode(w http.ResponseWriter, r *http.Request) error {
	c, err := h.dir.ResolveCode(r.Context(), r.PathValue("code"))
	if err != nil {
		h.codes.WithLabelValues("not_found").Inc()
		return err
	}
	h.codes.WithLabelValues("resolved").Inc()
	c.MultiUse = false
	writeJSON(w, http.StatusOK, struct {
		Host         string `json:"host"`
		Room         string `json:"room,omitempty"`
		ServerKey    string `json:"server_key,omitempty"`
		NetworkModel string `json:"network_model,omitempty"`
	}{c.Host, c.Room, c.ServerKey, c.NetworkModel})
	return nil
}
