package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tickwire/tickwire/rendezvous"
	"github.com/tickwire/tickwire/tracker"
)

// runRendezvous serves the rendezvous: join codes for hosts behind home
// routers, hole punching brokered between host and joiner, and relay
// routes for when punching fails ("tickwire rendezvous").
func runRendezvous(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rendezvous", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "UDP address to serve, host:port (required)")
	public := fs.String("public", "", "the IP address joiners reach relay routes at (default: the --listen host)")
	maxCodes := fs.Int("max-codes", rendezvous.DefaultMaxCodes, "codes held at most")
	maxRelays := fs.Int("max-relays", rendezvous.DefaultMaxRelays, "relay routes open at most; 0: name no relay route (punching only)")
	rate := fs.String("rate", rendezvous.DefaultRate.String(), "registrations and resolves per IP address: N/s, N/min or N/hour")
	adminAddr := fs.String("admin", "", "HTTP address for /healthz, /readyz and /metrics (empty: none)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listen == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: rendezvous --listen ADDR [--public IP] [--max-codes N] [--max-relays N] [--rate N/min] [--admin ADDR]", errUsage)
	}
	r, err := tracker.ParseRate(*rate)
	if err != nil {
		return fmt.Errorf("%w: --rate: %v", errUsage, err)
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("%w: --listen: %v", errUsage, err)
	}
	var pub netip.Addr
	if *public != "" {
		if pub, err = netip.ParseAddr(*public); err != nil {
			return fmt.Errorf("%w: --public: %v", errUsage, err)
		}
	}
	pc, err := net.ListenPacket("udp", *listen)
	if err != nil {
		return err
	}
	cfg := rendezvous.ServerConfig{MaxCodes: *maxCodes, Rate: r}
	if *maxRelays > 0 {
		cfg.Relays = &rendezvous.RelayPool{Ctx: ctx, Public: pub, Max: *maxRelays,
			Listen: func() (net.PacketConn, error) { return net.ListenPacket("udp", net.JoinHostPort(host, "0")) }}
	}
	svc := rendezvous.NewService(cfg)
	svc.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if *adminAddr != "" {
		hl, err := net.Listen("tcp", *adminAddr)
		if err != nil {
			pc.Close()
			return err
		}
		wg.Go(func() { serveRendezvousAdmin(ctx, hl, svc) })
		fmt.Fprintf(stdout, "tickwire rendezvous: admin on http://%s/\n", hl.Addr())
	}
	fmt.Fprintf(stdout, "tickwire rendezvous: serving on %s\n", pc.LocalAddr())
	return svc.Serve(ctx, pc)
}

// serveRendezvousAdmin serves the rendezvous's /healthz, /readyz and
// /metrics on hl until ctx ends.
func serveRendezvousAdmin(ctx context.Context, hl net.Listener, svc *rendezvous.Service) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(rendezvousCollector{svc}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if ctx.Err() != nil {
			http.Error(w, "not ready: shutting down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	stop := context.AfterFunc(ctx, func() { hs.Close() })
	defer stop()
	hs.Serve(hl)
}

var (
	rendezvousCodes   = prometheus.NewDesc("tickwire_rendezvous_codes", "Join codes held.", nil, nil)
	rendezvousClients = prometheus.NewDesc("tickwire_rendezvous_rate_limited_addresses", "Addresses the rate limiter remembers.", nil, nil)
	rendezvousRefused = prometheus.NewDesc("tickwire_rendezvous_refusals_total", "Datagrams refused, by reason (malformed, unknown_code, code_used, rate_limited, full, bad_secret).", []string{"reason"}, nil)
)

// rendezvousCollector exposes a rendezvous's Stats.
type rendezvousCollector struct{ svc *rendezvous.Service }

func (rendezvousCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- rendezvousCodes
	ch <- rendezvousClients
	ch <- rendezvousRefused
}

func (c rendezvousCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.svc.Stats()
	ch <- prometheus.MustNewConstMetric(rendezvousCodes, prometheus.GaugeValue, float64(st.Codes))
	ch <- prometheus.MustNewConstMetric(rendezvousClients, prometheus.GaugeValue, float64(st.Clients))
	for r, n := range st.Refused {
		ch <- prometheus.MustNewConstMetric(rendezvousRefused, prometheus.CounterValue, float64(n), rendezvous.ReasonLabel(r))
	}
}
