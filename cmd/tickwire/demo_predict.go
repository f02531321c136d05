package main

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/relay/server"
	"github.com/tickwire/tickwire/relay/server/room"
	"github.com/tickwire/tickwire/transport"
)

// demoPredictFlags are the options of "tickwire demo --mode predict".
type demoPredictFlags struct {
	players int
	ticks   uint64
	tps     int
	latency time.Duration
	jitter  time.Duration
	loss    float64
	seed    uint64
	json    bool
	local   bool
	sec     securityFlags
}

func parseDemoPredictFlags(args []string, stderr io.Writer) (demoPredictFlags, error) {
	var f demoPredictFlags
	fs := flag.NewFlagSet("demo --mode predict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&f.players, "players", 4, "bot players")
	fs.Uint64Var(&f.ticks, "ticks", 900, "ticks each bot predicts")
	fs.IntVar(&f.tps, "tps", 60, "ticks per second")
	fs.DurationVar(&f.latency, "latency", 50*time.Millisecond, "one-way delay added in each direction of every client")
	fs.DurationVar(&f.jitter, "jitter", 10*time.Millisecond, "uniform ± jitter on that delay")
	fs.Float64Var(&f.loss, "loss", 0.02, "independent packet loss in each direction")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the network impairment")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	fs.BoolVar(&f.local, "local", false, "one player against the room in this process, through the loopback layer (no sockets)")
	f.sec.addInsecure(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.players < 1 || f.players > 255:
		return f, fmt.Errorf("%w: --players must be 1..255", errUsage)
	case f.ticks < 1:
		return f, fmt.Errorf("%w: --ticks must be at least 1", errUsage)
	case f.tps < 1 || f.tps > 1000:
		return f, fmt.Errorf("%w: --tps must be 1..1000", errUsage)
	}
	if f.local {
		f.players = 1
	}
	link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
	if err := link.Validate(); err != nil {
		return f, fmt.Errorf("%w: %v", errUsage, err)
	}
	return f, nil
}

// runDemoPredict plays a prediction room in one process: bots over real
// loopback UDP sockets impaired by netsim against a server hosting the
// prediction model, or with --local one bot through the loopback layer.
// It exits non-zero unless parity holds.
func runDemoPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseDemoPredictFlags(args, stderr)
	if err != nil {
		return err
	}
	var open func(ctx context.Context, i int) (predict.Network, error)
	if f.local {
		open = func(ctx context.Context, _ int) (predict.Network, error) {
			return netlayer.Open(ctx, netlayer.Options{Local: true, Server: predict.ServerConfig{TickRate: f.tps},
				NewGame: func() predict.Game { return predictionGame(f.tps, f.seed) }})
		}
	} else {
		scfg := server.Config{TickRate: f.tps, Models: []room.Model{predictionModel(f.tps)}, DefaultModel: room.Prediction}
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
		if sc != nil {
			relayCfg.Security = sc
			clientCfg.Security = &transport.SecurityConfig{ServerKey: sc.Identity.Public().(ed25519.PublicKey)}
		}
		d, err := startLocalRelay(ctx, relayCfg, scfg)
		if err != nil {
			return err
		}
		defer d.stop()
		link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
		open = func(ctx context.Context, i int) (predict.Network, error) {
			return netlayer.Open(ctx, netlayer.Options{Room: "demo", RoomSize: f.players,
				Dial: func(ctx context.Context) (*transport.Conn, error) {
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
				}})
		}
	}
	r := playPredict(ctx, f.players, f.ticks, f.tps, f.local, open)
	return printPredictReport(stdout, &r, f.json, func(w io.Writer) {
		if f.local {
			fmt.Fprintf(w, "tickwire demo --mode predict --local: 1 bot, %d ticks at %d tps, loopback layer\n", f.ticks, f.tps)
			return
		}
		fmt.Fprintf(w, "tickwire demo --mode predict: %d bots, %d ticks at %d tps, %v ± %v one-way, %.0f%% loss each way\n",
			f.players, f.ticks, f.tps, f.latency, f.jitter, 100*f.loss)
	})
}
