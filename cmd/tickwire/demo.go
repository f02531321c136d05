package main

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/tickwire/tickwire/internal/botrun"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/relay/server"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/transport"
)

// demoFlags are the options of "tickwire demo".
type demoFlags struct {
	players int
	ticks   uint64
	tps     int
	latency time.Duration
	jitter  time.Duration
	loss    float64
	seed    uint64
	json    bool
	sec     securityFlags
}

func parseDemoFlags(args []string, stderr io.Writer) (demoFlags, error) {
	var f demoFlags
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&f.players, "players", 4, "bot players")
	fs.Uint64Var(&f.ticks, "ticks", 900, "ticks to play")
	fs.IntVar(&f.tps, "tps", 30, "ticks per second")
	fs.DurationVar(&f.latency, "latency", 40*time.Millisecond, "one-way delay added in each direction of every client")
	fs.DurationVar(&f.jitter, "jitter", 10*time.Millisecond, "uniform ± jitter on that delay")
	fs.Float64Var(&f.loss, "loss", 0.05, "independent packet loss in each direction")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the network impairment")
	fs.BoolVar(&f.json, "json", false, "print one JSON object (the bot --json summary)")
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
	}
	link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
	if err := link.Validate(); err != nil {
		return f, fmt.Errorf("%w: %v", errUsage, err)
	}
	return f, nil
}

// runDemo plays a whole relay match in one process over real loopback UDP
// sockets: a relay server and one bot client per player, each client's
// socket impaired by netsim. It prints the bot summary and fails unless
// every client ends with the same state hash and no desync.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	args, mode, err := splitMode(args)
	if err != nil {
		return err
	}
	if mode == "statesync" {
		return runStateSyncDemo(ctx, args, stdout, stderr)
	}
	f, err := parseDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	var progress func(botrun.Progress)
	if !f.json && isTerminal(stdout) {
		progress = func(p botrun.Progress) {
			if p.Playing < f.players {
				fmt.Fprintf(stdout, "\rjoining and calibrating: %d/%d bots playing   ", p.Playing, f.players)
				return
			}
			fmt.Fprintf(stdout, "\rtick %d/%d  late orders %d  rtt %v  desyncs %d          ",
				p.Tick, p.Ticks, p.LateOrders, p.RTT.Round(time.Millisecond), p.Desyncs)
		}
	}
	r, st, err := playDemo(ctx, f, progress)
	if err != nil {
		return err
	}
	if progress != nil {
		fmt.Fprintln(stdout)
	}
	return printSummary(stdout, &r, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo: %d bots, %d ticks at %d tps, %v ± %v one-way, %.0f%% loss each way\n",
			f.players, f.ticks, f.tps, f.latency, f.jitter, 100*f.loss)
		fmt.Fprintf(w, "relay: %d late orders, %d strikes, %d QoS adjustments, %d desyncs, %d bytes in, %d bytes out\n",
			st.LateOrders, st.Strikes, st.QosAdjustments, st.Desyncs, st.BytesIn, st.BytesOut)
	})
}

// playDemo runs the demo's match: a relay server on a loopback socket and
// f.players bots whose sockets netsim impairs. It returns the bots'
// summary and the relay's figures at the end.
func playDemo(ctx context.Context, f demoFlags, progress func(botrun.Progress)) (botrun.Report, server.Stats, error) {
	relayCfg, clientCfg := server.TransportConfig(), server.TransportConfig()
	sc, err := f.sec.serverConfig(0)
	if err != nil {
		return botrun.Report{}, server.Stats{}, err
	}
	if sc != nil { // the bots pin the relay's key
		relayCfg.Security = sc
		clientCfg.Security = &transport.SecurityConfig{ServerKey: sc.Identity.Public().(ed25519.PublicKey)}
	}
	d, err := startLocalRelay(ctx, relayCfg, server.Config{TickRate: f.tps})
	if err != nil {
		return botrun.Report{}, server.Stats{}, err
	}
	defer d.stop()
	link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
	join := func(ctx context.Context, i int) (botrun.Client, error) {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		impaired := netsim.Wrap(pc, netsim.Config{Seed: f.seed*1000 + uint64(i), Out: link, In: link})
		conn, err := transport.Dial(ctx, impaired, d.addr, clientCfg)
		if err != nil {
			impaired.Close()
			return nil, err
		}
		return joinRoom(ctx, conn, "demo", f.players)
	}
	r, err := botrun.Run(ctx, botrun.Config{Players: f.players, Ticks: f.ticks, Join: join, OnProgress: progress})
	return r, d.srv.Stats(), err
}

// localRelay is a relay server in this process, on a loopback socket.
type localRelay struct {
	srv    *server.Server
	ln     *transport.Listener
	addr   net.Addr
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startLocalRelay(ctx context.Context, tcfg transport.Config, cfg server.Config) (*localRelay, error) {
	ln, err := listenRelay(ctx, "127.0.0.1:0", tcfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	d := &localRelay{srv: server.New(cfg), ln: ln, addr: ln.Addr(), cancel: cancel}
	d.wg.Go(func() { d.srv.Serve(ctx, ln) })
	return d, nil
}

// stop ends the games and closes the socket.
func (d *localRelay) stop() {
	d.cancel()
	d.wg.Wait()
	d.srv.Close()
	d.ln.Close()
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
