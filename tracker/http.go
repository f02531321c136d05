package tracker

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"slices"
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
	// Ready reports readiness for /readyz; nil means always ready. /readyz
	// also fails while the directory's store is out of reach (Pinger).
	Ready func() bool
	// TrustedProxies are the addresses of the load balancers in front of
	// the tracker: a request from one of them is the client's that
	// X-Forwarded-For names (its rightmost address not itself a trusted
	// proxy). Without them X-Forwarded-For is ignored: anyone could
	// write it.
	TrustedProxies []netip.Prefix
	// PublisherTokens, when set, are the bearer tokens a publish must
	// present (Authorization: Bearer T): only the operator's servers
	// list rooms, and the per-address cap no longer applies to them
	// (the per-server-key cap does). Browsing and join codes stay open.
	PublisherTokens []string
	// Verify, when set, checks a listing before it is first accepted:
	// the advertised server must prove, over its own address, that it
	// holds the listing's server key (cmd/tickwire does a secure
	// handshake pinning the key). Its error (wrapping ErrUnverified)
	// refuses the publish with 422. Heartbeats are not verified again:
	// they carry the listing's token and cannot change its key.
	Verify func(ctx context.Context, l Listing) error
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

	lastLog        atomic.Int64                      // unix nanoseconds of the last internal error logged
	lastRefusalLog [len(refusalReasons)]atomic.Int64 // of the last refusal logged, by reason
	// shared, when the store keeps rate limits for every tracker on it,
	// replaces the in-process limiters.
	shared     SharedLimiter
	publishers [][32]byte // SHA-256 of HandlerConfig.PublisherTokens

	requests    *prometheus.CounterVec
	rateLimited prometheus.Counter
	refused     *prometheus.CounterVec
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
	h.shared, _ = dir.cfg.Store.(SharedLimiter)
	for _, t := range cfg.PublisherTokens {
		h.publishers = append(h.publishers, sha256.Sum256([]byte(t)))
	}
	reg := prometheus.NewRegistry()
	h.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tickwire_tracker_requests_total",
		Help: "API requests by route and status code."}, []string{"route", "code"})
	h.rateLimited = prometheus.NewCounter(prometheus.CounterOpts{Name: "tickwire_tracker_rate_limited_total",
		Help: "Requests refused by the per-address rate limit."})
	h.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tickwire_tracker_publishes_refused_total",
		Help: "Publishes refused, by reason (full, source_full, unverified, publisher_token)."}, []string{"reason"})
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
	reg.MustRegister(h.requests, h.rateLimited, h.codes, h.refused, listings)

	h.route("POST /v1/listings", "publish", h.limit, h.publish)
	h.route("PUT /v1/listings/{id}", "update", h.heartbeats, h.update)
	h.route("DELETE /v1/listings/{id}", "unpublish", h.heartbeats, h.unpublish)
	h.route("GET /v1/listings", "browse", h.limit, h.browse)
	h.route("POST /v1/join-codes", "register_code", h.limit, h.registerCode)
	h.route("GET /v1/join-codes/{code}", "resolve_code", h.limit, h.resolveCode)
	h.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	h.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if cfg.Ready != nil && !cfg.Ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := dir.Ping(ctx); err != nil {
			http.Error(w, "not ready: store unreachable: "+err.Error(), http.StatusServiceUnavailable)
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
		if ok, wait := h.allow(r.Context(), lim, h.clientAddr(r)); !ok {
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

// refusalReasons are the reasons a publish is refused for, as labels.
var refusalReasons = [...]string{"full", "source_full", "unverified", "publisher_token"}

// refuse counts a refused publish and logs it, at most once a second per
// reason.
func (h *Handler) refuse(reason, from string, err error) {
	h.refused.WithLabelValues(reason).Inc()
	i := slices.Index(refusalReasons[:], reason)
	if i < 0 {
		return
	}
	last := &h.lastRefusalLog[i]
	now := h.now().UnixNano()
	if l := last.Load(); now-l >= int64(time.Second) && last.CompareAndSwap(l, now) {
		h.cfg.Logger.Warn("tracker: publish refused", "reason", reason, "from", from, "err", err)
	}
}

func (h *Handler) logInternal(route string, err error) {
	now := h.now().UnixNano()
	if last := h.lastLog.Load(); now-last >= int64(time.Second) && h.lastLog.CompareAndSwap(last, now) {
		h.cfg.Logger.Error("tracker request failed", "route", route, "err", err)
	}
}

// allow takes a token of lim's rate for addr: from the store's shared
// limiter when it has one (every tracker on it counts together), else
// (or while the store fails) from lim itself.
func (h *Handler) allow(ctx context.Context, lim *Limiter, addr string) (bool, time.Duration) {
	if h.shared != nil {
		kind := "req:"
		if lim == h.heartbeats {
			kind = "hb:"
		}
		ok, wait, err := h.shared.Allow(ctx, kind+addr, lim.rate, h.now())
		if err == nil {
			return ok, wait
		}
		h.logInternal("rate limit", err)
	}
	return lim.Allow(addr, h.now())
}

// clientAddr is the address a request comes from: its peer's, or behind
// a trusted proxy the one X-Forwarded-For names.
func (h *Handler) clientAddr(r *http.Request) string {
	return ClientAddr(r, h.cfg.TrustedProxies)
}

// ClientAddr is the IP address r comes from: the peer's, or when the peer
// is one of trusted (load balancers) the rightmost X-Forwarded-For address
// that is not itself trusted. Headers from untrusted peers are ignored.
func ClientAddr(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	isTrusted := func(s string) (netip.Addr, bool) {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return netip.Addr{}, false
		}
		a = a.Unmap()
		for _, p := range trusted {
			if p.Contains(a) {
				return a, true
			}
		}
		return a, false
	}
	if _, ok := isTrusted(host); !ok {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := isTrusted(hops[i])
		if !a.IsValid() {
			break // garbage: stop at the last proxy we trust
		}
		if !ok {
			return a.String()
		}
		host = a.String()
	}
	return host
}

// ParseCIDRs reads "10.0.0.0/8,192.168.1.7" (an address alone is /32 or
// /128).
func ParseCIDRs(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("%q is neither an address nor a CIDR", f)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
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
	case errors.Is(err, ErrFull), errors.Is(err, ErrSourceFull):
		return http.StatusConflict, err.Error()
	case errors.Is(err, errPublisherToken):
		return http.StatusUnauthorized, err.Error()
	case errors.Is(err, ErrUnverified):
		return http.StatusUnprocessableEntity, err.Error()
	}
	return http.StatusInternalServerError, "internal error"
}

var errBadJSON = errors.New("malformed JSON body")

// errPublisherToken is a publish without a publisher token the tracker
// knows (HandlerConfig.PublisherTokens).
var errPublisherToken = errors.New("tracker: publishing needs a publisher token (Authorization: Bearer TOKEN)")

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

// publisherOK reports whether r bears a publisher token, if any is
// required.
func (h *Handler) publisherOK(r *http.Request) bool {
	if len(h.publishers) == 0 {
		return true
	}
	got := sha256.Sum256([]byte(bearer(r)))
	ok := 0
	for _, want := range h.publishers {
		ok |= subtle.ConstantTimeCompare(got[:], want[:])
	}
	return ok == 1
}

func (h *Handler) publish(w http.ResponseWriter, r *http.Request) error {
	if !h.publisherOK(r) {
		h.refuse("publisher_token", h.clientAddr(r), errPublisherToken)
		return errPublisherToken
	}
	var l Listing
	if err := decode(r, &l); err != nil {
		return err
	}
	if l.ID != "" || !l.Expires.IsZero() || l.Source != "" {
		return fieldError("id", "id, expires and source are set by the tracker")
	}
	from := h.clientAddr(r)
	if h.cfg.Verify != nil {
		if err := l.Validate(); err != nil {
			return err
		}
		if err := h.cfg.Verify(r.Context(), l); err != nil {
			h.refuse("unverified", from, err)
			return err
		}
	}
	publisher := from
	if len(h.publishers) > 0 {
		publisher = "" // the operator's own servers: no per-address cap
	}
	p, err := h.dir.PublishFrom(r.Context(), publisher, l)
	switch {
	case errors.Is(err, ErrFull):
		h.refuse("full", from, err)
	case errors.Is(err, ErrSourceFull):
		h.refuse("source_full", from, err)
	}
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
