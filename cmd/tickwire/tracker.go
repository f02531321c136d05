package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/tracker/redisstore"
)

type trackerFlags struct {
	listen, store, rate, cert, key string
	ttl                            time.Duration
	maxListings                    int
	maxPerAddr, maxPerKey          int
	verify                         bool
	trustedProxies                 []netip.Prefix
	publisherTokens                []string
}

func parseTrackerFlags(args []string, stderr io.Writer) (trackerFlags, tracker.Rate, error) {
	var f trackerFlags
	fs := flag.NewFlagSet("tracker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:7780", "HTTP address of the API")
	fs.StringVar(&f.store, "store", "memory", "listing store: memory, or redis://HOST:PORT/DB (several trackers share one directory)")
	fs.DurationVar(&f.ttl, "ttl", 30*time.Second, "how long a listing lives without a heartbeat")
	fs.IntVar(&f.maxListings, "max-listings", 1000, "most listings at once (-1: no limit)")
	fs.IntVar(&f.maxPerAddr, "max-listings-per-addr", 16, "most listings one client address may publish without a publisher token (-1: no limit)")
	fs.IntVar(&f.maxPerKey, "max-listings-per-key", 64, "most listings naming one server key (-1: no limit)")
	fs.BoolVar(&f.verify, "verify-listings", true, "accept a new listing only once its server proved its server_key in a secure handshake on the listed address (false: trust publishers)")
	proxies := fs.String("trusted-proxies", "", "load balancers in front of the tracker, CIDR,...: their X-Forwarded-For names the client (for rate limits and per-address caps)")
	tokens := fs.String("publisher-tokens", "", "file of publisher tokens, one a line: a publish must present one (Authorization: Bearer); empty: anyone may publish")
	fs.StringVar(&f.rate, "rate", "60/min", "requests per client address (N/s, N/min, N/hour); heartbeats get ten times as many")
	fs.StringVar(&f.cert, "cert", "", "TLS certificate file (PEM): serve HTTPS")
	fs.StringVar(&f.key, "key", "", "TLS private key file (PEM), with --cert")
	if err := parseFlags(fs, args); err != nil {
		return f, tracker.Rate{}, err
	}
	if fs.NArg() > 0 {
		return f, tracker.Rate{}, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	rate, err := tracker.ParseRate(f.rate)
	if err != nil {
		return f, rate, fmt.Errorf("%w: --rate: %v", errUsage, err)
	}
	if f.trustedProxies, err = tracker.ParseCIDRs(*proxies); err != nil {
		return f, rate, fmt.Errorf("%w: --trusted-proxies: %v", errUsage, err)
	}
	if *tokens != "" {
		b, err := os.ReadFile(*tokens)
		if err != nil {
			return f, rate, fmt.Errorf("%w: --publisher-tokens: %v", errUsage, err)
		}
		for line := range strings.Lines(string(b)) {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				f.publisherTokens = append(f.publisherTokens, t)
			}
		}
		if len(f.publisherTokens) == 0 {
			return f, rate, fmt.Errorf("%w: --publisher-tokens: %s holds no token", errUsage, *tokens)
		}
	}
	switch {
	case f.ttl <= 0:
		return f, rate, fmt.Errorf("%w: --ttl must be positive", errUsage)
	case f.maxListings == 0 || f.maxListings < -1:
		return f, rate, fmt.Errorf("%w: --max-listings must be positive or -1", errUsage)
	case f.maxPerAddr == 0 || f.maxPerAddr < -1 || f.maxPerKey == 0 || f.maxPerKey < -1:
		return f, rate, fmt.Errorf("%w: --max-listings-per-addr and --max-listings-per-key must be positive or -1", errUsage)
	case (f.cert == "") != (f.key == ""):
		return f, rate, fmt.Errorf("%w: --cert and --key go together", errUsage)
	case f.store != "memory" && !strings.HasPrefix(f.store, "redis://"):
		return f, rate, fmt.Errorf("%w: --store must be memory or redis://HOST:PORT/DB", errUsage)
	}
	return f, rate, nil
}

// runTracker serves the tracking server (game browser and join codes)
// until ctx ends.
func runTracker(ctx context.Context, args []string, _, stderr io.Writer) error {
	f, rate, err := parseTrackerFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg := tracker.Config{TTL: f.ttl, MaxListings: f.maxListings, MaxPerPublisher: f.maxPerAddr, MaxPerServerKey: f.maxPerKey}
	if strings.HasPrefix(f.store, "redis://") {
		s, err := redisstore.Open(ctx, f.store)
		if err != nil {
			return err
		}
		defer s.Close()
		cfg.Store = s
	}
	var ready atomic.Bool
	h := tracker.NewHandler(tracker.NewDirectory(cfg), tracker.HandlerConfig{Rate: rate, Logger: log, Ready: ready.Load,
		TrustedProxies: f.trustedProxies, PublisherTokens: f.publisherTokens, Verify: f.verifier()})
	l, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	scheme := "http"
	if f.cert != "" {
		scheme = "https"
	}
	errc := make(chan error, 1)
	go func() {
		if f.cert != "" {
			errc <- srv.ServeTLS(l, f.cert, f.key)
		} else {
			errc <- srv.Serve(l)
		}
	}()
	ready.Store(true)
	log.Info("tracker listening", "url", scheme+"://"+l.Addr().String(), "store", storeName(f.store), "ttl", f.ttl,
		"max_listings", f.maxListings, "max_listings_per_addr", f.maxPerAddr, "max_listings_per_key", f.maxPerKey, "rate", rate.String(),
		"trusted_proxies", len(f.trustedProxies), "publisher_tokens", len(f.publisherTokens) > 0, "verify_listings", f.verify)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	ready.Store(false)
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// storeName is the store for the log, without a password a URL may hold.
func storeName(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return "redis://…" + s[i:]
	}
	return s
}

// verifier is the listings' check of --verify-listings, nil without.
func (f *trackerFlags) verifier() func(context.Context, tracker.Listing) error {
	if !f.verify {
		return nil
	}
	return (&keyVerifier{}).Verify
}
