package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/tickwire/tickwire/internal/atomicfile"
	"github.com/tickwire/tickwire/lockstep/hostrelay"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/rendezvous"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// hostGrace is how long the host keeps serving after its own bot's last
// tick, so the joiners' last frames are delivered before the room closes.
const hostGrace = 2 * time.Second

// hostFlags are the options of "tickwire host".
type hostFlags struct {
	rendezvous string
	listen     string
	players    int
	ticks      uint64
	qr         bool
	qrPNG      string
	json       bool
	insecure   bool
	wait       time.Duration
	firstTTL   int
	sec        securityFlags // the per-address limits
}

func parseHostFlags(args []string, stderr io.Writer) (hostFlags, error) {
	var f hostFlags
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.rendezvous, "rendezvous", "", "the rendezvous server, host:port (required)")
	fs.StringVar(&f.listen, "listen", ":0", "the game socket, host:port")
	fs.IntVar(&f.players, "players", 2, fmt.Sprintf("players of the match, the host's bot included (2 to %d)", rendezvous.MaxUses+1))
	fs.Uint64Var(&f.ticks, "ticks", 300, "ticks to play")
	fs.BoolVar(&f.qr, "qr", false, "also draw the join URI as a QR code in the terminal and write it as a PNG (--qr-png)")
	fs.StringVar(&f.qrPNG, "qr-png", "tickwire-join.png", "the PNG file --qr writes")
	fs.BoolVar(&f.json, "json", false, `print {"join": URI} first, then the bot summary as one JSON object with "path"`)
	fs.BoolVar(&f.insecure, "insecure", false, "plaintext connections (the joiners must say --insecure too)")
	fs.DurationVar(&f.wait, "wait", 10*time.Minute, "how long to wait for the joiners")
	f.sec.addAddrLimits(fs)
	fs.IntVar(&f.firstTTL, "first-ttl", rendezvous.DefaultFirstTTL, "IP TTL of the first round of punch probes: opens this NAT's mapping without reaching the joiner's router; -1: the full TTL")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.rendezvous == "":
		return f, fmt.Errorf("%w: --rendezvous is required", errUsage)
	case f.players < 2 || f.players > rendezvous.MaxUses+1:
		return f, fmt.Errorf("%w: --players must be between 2 and %d", errUsage, rendezvous.MaxUses+1)
	case f.ticks < 1:
		return f, fmt.Errorf("%w: --ticks must be at least 1", errUsage)
	case f.sec.maxPerAddr < 1:
		return f, fmt.Errorf("%w: --max-conns-per-addr must be at least 1", errUsage)
	}
	return f, nil
}

// runHost is a listen server from the command line: a lockstep room
// in-process with the host's bot seated (lockstep/hostrelay), registered
// at a rendezvous so that joiners behind other NATs reach it by a code.
func runHost(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseHostFlags(args, stderr)
	if err != nil {
		return err
	}
	rv, err := net.ResolveUDPAddr("udp", f.rendezvous)
	if err != nil {
		return fmt.Errorf("%w: --rendezvous: %v", errUsage, err)
	}
	udp, err := net.ListenPacket("udp", f.listen)
	if err != nil {
		return err
	}
	conn := rendezvous.NewConn(udp)
	tcfg := lanes.TransportConfig()
	var key []byte
	if !f.insecure {
		pub, id, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		tcfg.Security, key = &transport.SecurityConfig{Identity: id, Limits: f.sec.limits(0)}, pub
	}
	l, err := transport.Listen(ctx, conn, tcfg)
	if err != nil {
		conn.Close()
		return err
	}
	defer l.Close()
	relay, err := hostrelay.Start(ctx, l, f.players, hostrelay.Config{})
	if err != nil {
		return err
	}
	defer relay.Close()
	h, err := rendezvous.Register(ctx, conn, rendezvous.HostConfig{
		Rendezvous: rv.AddrPort(), Room: hostrelay.DefaultRoom, RoomSize: f.players, ServerKey: key, Uses: f.players - 1,
		Candidates: localCandidates(udp.LocalAddr()), Punch: rendezvous.PunchConfig{FirstTTL: f.firstTTL}, Log: slog.New(slog.NewTextHandler(stderr, nil)),
	})
	if err != nil {
		return fmt.Errorf("rendezvous %s: %w", f.rendezvous, err)
	}
	defer h.Close()
	if err := announce(stdout, stderr, rendezvous.JoinURI(h.Code(), f.rendezvous), f); err != nil {
		return err
	}
	r, err := lockstepbot.Run(ctx, lockstepbot.Config{Players: 1, RoomSize: f.players, Ticks: f.ticks, StartTimeout: f.wait,
		Join: func(context.Context, int) (lockstepbot.Client, error) { return hostBot{relay}, nil }})
	// A room still waiting never started: the joiners in it learn why it
	// closes.
	relay.Server().CloseWaiting(fmt.Sprintf("the host stopped waiting: the match did not start within %v (--wait)", f.wait))
	if err != nil {
		return err
	}
	select { // the joiners' last frames
	case <-time.After(hostGrace):
	case <-ctx.Done():
	}
	return printReport(stdout, pathReport{lockstepReport: lockstepReport{Report: &r}, Path: h.Path()}, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire host: %d players, %d ticks, code %s, path %s\n", f.players, f.ticks, h.Code(), h.Path())
	})
}

// hostBot is the host's seat: leaving the game leaves the room open for
// the joiners until the host closes it.
type hostBot struct{ *hostrelay.Relay }

func (b hostBot) Close() error { return b.RelayClient.Close() }

// pathReport is a lockstep bot summary with the path its connection took.
type pathReport struct {
	lockstepReport
	Path rendezvous.Path `json:"path"`
	// RouteMS and FirstTickMS are, for a joiner, the time from the code's
	// entry to the route (punched or relayed) and to its first tick.
	RouteMS     float64 `json:"route_ms,omitempty"`
	FirstTickMS float64 `json:"first_tick_ms,omitempty"`
}

func (r pathReport) table(w io.Writer) {
	r.lockstepReport.table(w)
	fmt.Fprintf(w, "path: %s\n", r.Path)
	if r.FirstTickMS > 0 {
		fmt.Fprintf(w, "code entry to route: %.0f ms, to first tick: %.0f ms\n", r.RouteMS, r.FirstTickMS)
	}
}

// announce prints the join URI first (as {"join": URI} with --json) and,
// with --qr, draws it and writes its PNG.
func announce(stdout, stderr io.Writer, uri string, f hostFlags) error {
	if f.json {
		if err := json.NewEncoder(stdout).Encode(map[string]string{"join": uri}); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, uri)
	}
	if !f.qr {
		return nil
	}
	q, err := qrcode.New(uri, qrcode.Medium)
	if err != nil {
		return err
	}
	drawing := stdout
	if f.json {
		drawing = stderr // standard output stays JSON lines
	}
	fmt.Fprint(drawing, q.ToSmallString(false))
	png, err := q.PNG(256)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(f.qrPNG, png, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tickwire host: the QR code is in %s\n", f.qrPNG)
	return nil
}

// localCandidates are the host's private IPv4 addresses with the game
// socket's port, for joiners on the same network.
func localCandidates(local net.Addr) []netip.AddrPort {
	ua, ok := local.(*net.UDPAddr)
	if !ok {
		return nil
	}
	port := uint16(ua.Port)
	if ip, ok := netip.AddrFromSlice(ua.IP); ok && !ip.Unmap().IsUnspecified() {
		return []netip.AddrPort{netip.AddrPortFrom(ip.Unmap(), port)}
	}
	addrs, _ := net.InterfaceAddrs()
	var out []netip.AddrPort
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && len(out) < rendezvous.MaxCandidates {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap().Is4() && ip.Unmap().IsPrivate() {
				out = append(out, netip.AddrPortFrom(ip.Unmap(), port))
			}
		}
	}
	return out
}
