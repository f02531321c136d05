package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"

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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *listen == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: rendezvous --listen ADDR [--public IP] [--max-codes N] [--max-relays N] [--rate N/min]", errUsage)
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
	fmt.Fprintf(stdout, "tickwire rendezvous: serving on %s\n", pc.LocalAddr())
	return rendezvous.NewService(cfg).Serve(ctx, pc)
}
