package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// linkFlag is one impairment flag; set parses its value into a Link.
type linkFlag struct {
	name, usage string
	set         func(l *netsim.Link, v string) error
}

func linkFlags() []linkFlag {
	dur := func(f func(*netsim.Link) *time.Duration) func(*netsim.Link, string) error {
		return func(l *netsim.Link, v string) error {
			d, err := time.ParseDuration(v)
			*f(l) = d
			return err
		}
	}
	prob := func(f func(*netsim.Link) *float64) func(*netsim.Link, string) error {
		return func(l *netsim.Link, v string) error {
			p, err := strconv.ParseFloat(v, 64)
			*f(l) = p
			return err
		}
	}
	return []linkFlag{
		{"latency", "one-way delay, e.g. 40ms", dur(func(l *netsim.Link) *time.Duration { return &l.Latency })},
		{"jitter", "uniform ± jitter on the delay, e.g. 10ms", dur(func(l *netsim.Link) *time.Duration { return &l.Jitter })},
		{"loss", "independent loss probability", prob(func(l *netsim.Link) *float64 { return &l.Loss })},
		{"burst-enter", "Gilbert-Elliott good->bad probability per packet", prob(func(l *netsim.Link) *float64 { return &l.Burst.Enter })},
		{"burst-exit", "Gilbert-Elliott bad->good probability per packet (mean burst 1/p)", prob(func(l *netsim.Link) *float64 { return &l.Burst.Exit })},
		{"burst-good-loss", "loss probability in the good state", prob(func(l *netsim.Link) *float64 { return &l.Burst.GoodLoss })},
		{"burst-bad-loss", "loss probability in the bad state (0 means 1)", prob(func(l *netsim.Link) *float64 { return &l.Burst.BadLoss })},
		{"dup", "duplication probability", prob(func(l *netsim.Link) *float64 { return &l.Duplicate })},
		{"reorder", "probability of holding a packet back by --reorder-delay", prob(func(l *netsim.Link) *float64 { return &l.Reorder })},
		{"reorder-delay", "hold-back of a reordered packet (default 20ms)", dur(func(l *netsim.Link) *time.Duration { return &l.ReorderDelay })},
		{"corrupt", "probability of flipping one random bit", prob(func(l *netsim.Link) *float64 { return &l.Corrupt })},
		{"bandwidth", "rate limit: 10mbit, 500kbit, 64kB or bytes/s (0 = unlimited)", func(l *netsim.Link, v string) error {
			b, err := netsim.ParseBandwidth(v)
			l.BandwidthBps = b
			return err
		}},
		{"queue", "bandwidth queue limit in bytes (default 65536)", func(l *netsim.Link, v string) error {
			n, err := strconv.Atoi(v)
			l.QueueLimit = n
			return err
		}},
	}
}

// runNetsim is "tickwire netsim": a thin flag shell around netsim.Proxy.
func runNetsim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("netsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "address clients send to, e.g. :7000 (required)")
	upstream := fs.String("upstream", "", "server address, e.g. 127.0.0.1:7001 (required)")
	seed := fs.Uint64("seed", 1, "impairment seed; client n uses seed+n")
	maxClients := fs.Int("max-clients", netsim.DefaultMaxClients, "cap on client mappings")
	idle := fs.Duration("idle", netsim.DefaultIdleTimeout, "close a client mapping after this long without traffic")

	// Symmetric flags apply first, then the per-direction overrides.
	var both, up, down []func(*netsim.Link)
	for _, lf := range linkFlags() {
		for _, dir := range []struct {
			prefix string
			into   *[]func(*netsim.Link)
		}{{"", &both}, {"up-", &up}, {"down-", &down}} {
			fs.Func(dir.prefix+lf.name, lf.usage, func(v string) error {
				if err := lf.set(&netsim.Link{}, v); err != nil {
					return err
				}
				*dir.into = append(*dir.into, func(l *netsim.Link) { lf.set(l, v) })
				return nil
			})
		}
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listen == "" || *upstream == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: need --listen and --upstream and no arguments", errUsage)
	}
	var upLink, downLink netsim.Link
	for _, f := range both {
		f(&upLink)
		f(&downLink)
	}
	for _, f := range up {
		f(&upLink)
	}
	for _, f := range down {
		f(&downLink)
	}
	if err := (netsim.Config{Out: upLink, In: downLink}).Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}

	upAddr, err := net.ResolveUDPAddr("udp", *upstream)
	if err != nil {
		return fmt.Errorf("%w: --upstream: %v", errUsage, err)
	}
	conn, err := net.ListenPacket("udp", *listen)
	if err != nil {
		return err
	}
	defer conn.Close()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	p := netsim.NewProxy(conn, upAddr, netsim.ProxyConfig{
		Seed: *seed, Up: upLink, Down: downLink, MaxClients: *maxClients, IdleTimeout: *idle, Logger: log,
	})
	log.Info("netsim proxy listening", "listen", conn.LocalAddr().String(), "upstream", upAddr.String(),
		"seed", *seed, "up", fmt.Sprintf("%+v", upLink), "down", fmt.Sprintf("%+v", downLink))
	err = p.Serve(ctx)
	st := p.Stats()
	log.Info("netsim proxy stopped", "clients_opened", st.Opened, "rejected", st.Rejected,
		"up", fmt.Sprintf("%+v", st.Up), "down", fmt.Sprintf("%+v", st.Down))
	return err
}
