package main

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/relay/server"
	"github.com/tickwire/tickwire/relay/server/room"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/transport"
)

// fogDemoFlags are the options of "tickwire demo --mode fogauth".
type fogDemoFlags struct {
	players int
	ticks   uint64
	tps     int
	units   int
	kbps    int
	latency time.Duration
	jitter  time.Duration
	loss    float64
	seed    uint64
	json    bool
	sec     securityFlags
}

func parseFogDemoFlags(args []string, stderr io.Writer) (fogDemoFlags, error) {
	var f fogDemoFlags
	fs := flag.NewFlagSet("demo --mode fogauth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&f.players, "players", 4, "bot players")
	fs.Uint64Var(&f.ticks, "ticks", 900, "ticks each bot plays")
	fs.IntVar(&f.tps, "tps", 30, "ticks per second")
	fs.IntVar(&f.units, "units", 50, "starting units per player")
	fs.IntVar(&f.kbps, "kbps", 64, "state budget per client, KiB/s (bandwidth_per_client_kbps)")
	fs.DurationVar(&f.latency, "latency", 40*time.Millisecond, "one-way delay added in each direction of every client")
	fs.DurationVar(&f.jitter, "jitter", 10*time.Millisecond, "uniform ± jitter on that delay")
	fs.Float64Var(&f.loss, "loss", 0.05, "independent packet loss in each direction")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the map and of the network impairment")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	f.sec.addInsecure(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.players < 1 || f.players > sim.MaxPlayers:
		return f, fmt.Errorf("%w: --players must be 1..%d", errUsage, sim.MaxPlayers)
	case f.ticks < 1:
		return f, fmt.Errorf("%w: --ticks must be at least 1", errUsage)
	case f.tps < 1 || f.tps > 1000:
		return f, fmt.Errorf("%w: --tps must be 1..1000", errUsage)
	case f.units < 1 || f.units > 1000:
		return f, fmt.Errorf("%w: --units must be 1..1000", errUsage)
	}
	link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
	if err := link.Validate(); err != nil {
		return f, fmt.Errorf("%w: %v", errUsage, err)
	}
	return f, nil
}

// runFogDemo plays a fog-authoritative match in one process over real
// loopback UDP sockets: a relay server hosting one fog room, and one bot
// client per player, each client's socket impaired by netsim. It prints
// the summary and fails unless every client ends consistent.
func runFogDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFogDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	fog := fogserver.Config{UnitsPerPlayer: f.units, Seed: func() uint64 { return f.seed }}
	fog.Room.TickRate, fog.Room.BandwidthPerClientKbps = f.tps, f.kbps
	scfg := server.Config{TickRate: f.tps, Models: []room.Model{fogserver.Model(fog)}, DefaultModel: room.FogAuthoritative}
	if err := scfg.Check(); err != nil {
		return err
	}
	relayCfg, err := scfg.Transport()
	if err != nil {
		return err
	}
	clientCfg := relayCfg
	f.sec.exemptLoopback = true // every bot connects from loopback
	sc, err := f.sec.serverConfig(0)
	if err != nil {
		return err
	}
	if sc != nil { // the bots pin the server's key
		relayCfg.Security = sc
		clientCfg.Security = &transport.SecurityConfig{ServerKey: sc.Identity.Public().(ed25519.PublicKey)}
	}
	d, err := startLocalRelay(ctx, relayCfg, scfg)
	if err != nil {
		return err
	}
	defer d.stop()
	link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
	dial := func(ctx context.Context, i int) (*transport.Conn, error) {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		impaired := netsim.Wrap(pc, netsim.Config{Seed: f.seed*1000 + uint64(i), Out: link, In: link})
		conn, err := transport.Dial(ctx, impaired, d.addr, clientCfg)
		if err != nil {
			impaired.Close()
		}
		return conn, err
	}
	r, err := runFogBots(ctx, fogRun{players: f.players, ticks: f.ticks, room: "demo", size: f.players, dial: dial, settle: 30 * time.Second})
	if err != nil {
		return err
	}
	return printFogSummary(stdout, &r, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo --mode fogauth: %d bots, %d ticks at %d tps, %d units each, %v ± %v one-way, %.0f%% loss each way\n",
			f.players, f.ticks, f.tps, f.units, f.latency, f.jitter, 100*f.loss)
	})
}
