package main

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/transport"
)

// What the network models' demo subcommands share: the common flags and
// the in-process server their bots dial through netsim. A mode's demo
// holds only what is specific to it; botkit.go has what its bots share,
// mode.go lists the modes.

// demoCommon are the options every "tickwire demo --mode M" has.
type demoCommon struct {
	players int
	ticks   uint64
	tps     int
	latency time.Duration
	jitter  time.Duration
	loss    float64
	seed    uint64
	json    bool
	sec     securityFlags
	// dashboard is the admin address to serve the dashboard on ("":
	// none); its URL is printed on stderr.
	dashboard string
	stderr    io.Writer
}

// demoSpec is what a mode sets of the shared demo flags.
type demoSpec struct {
	name    string        // the flag set's, e.g. "demo --mode fogauth"
	players int           // --players default (0: 4)
	nTicks  uint64        // --ticks default (0: 900)
	tps     int           // --tps default (0: the mode's rate is fixed, no --tps)
	latency time.Duration // --latency default
	jitter  time.Duration // --jitter default (0: 10ms)
	loss    float64       // --loss default
	ticks   string        // usage of --ticks
	seed    string        // usage of --seed
	json    string        // usage of --json
}

// flagSet is a flag set named s.name with the shared demo flags; the mode
// adds its own before calling parse.
func (f *demoCommon) flagSet(s demoSpec, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(s.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&f.players, "players", cmp.Or(s.players, 4), "bot players")
	fs.Uint64Var(&f.ticks, "ticks", cmp.Or(s.nTicks, 900), s.ticks)
	if s.tps > 0 {
		fs.IntVar(&f.tps, "tps", s.tps, "ticks per second")
	}
	fs.DurationVar(&f.latency, "latency", s.latency, "one-way delay added in each direction of every client")
	fs.DurationVar(&f.jitter, "jitter", cmp.Or(s.jitter, 10*time.Millisecond), "uniform ± jitter on that delay")
	fs.Float64Var(&f.loss, "loss", s.loss, "independent packet loss in each direction")
	fs.Uint64Var(&f.seed, "seed", 1, s.seed)
	fs.BoolVar(&f.json, "json", false, s.json)
	fs.StringVar(&f.dashboard, "dashboard", "", "serve the live dashboard (and /metrics) on this HTTP address while the match runs, e.g. 127.0.0.1:7778")
	f.stderr = stderr
	f.sec.addInsecure(fs)
	return fs
}

// parse parses args into fs and checks the shared flags. check, if not
// nil, checks the mode's own after the counts and before the impairment.
func (f *demoCommon) parse(fs *flag.FlagSet, args []string, maxPlayers int, check func() error) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.players < 1 || f.players > maxPlayers:
		return fmt.Errorf("%w: --players must be 1..%d", errUsage, maxPlayers)
	case f.ticks < 1:
		return fmt.Errorf("%w: --ticks must be at least 1", errUsage)
	case fs.Lookup("tps") != nil && (f.tps < 1 || f.tps > 1000):
		return fmt.Errorf("%w: --tps must be 1..1000", errUsage)
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	switch {
	case f.latency < 0:
		return fmt.Errorf("%w: --latency %v: must not be negative", errUsage, f.latency)
	case f.jitter < 0:
		return fmt.Errorf("%w: --jitter %v: must not be negative", errUsage, f.jitter)
	case !(f.loss >= 0 && f.loss <= 1): // also rejects NaN
		return fmt.Errorf("%w: --loss %v: a probability, 0..1 (0.05 is 5%%)", errUsage, f.loss)
	}
	return f.link().Validate()
}

// link is the impairment of each direction of every client.
func (f *demoCommon) link() netsim.Link {
	return netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
}

// impairment describes the link for a summary's header.
func (f *demoCommon) impairment() string {
	return fmt.Sprintf("%v ± %v one-way, %.0f%% loss each way", f.latency, f.jitter, 100*f.loss)
}

// showElapsed shows on the progress line, while a demo's match plays,
// what it plays and for how long, against its expected length (--ticks
// at perSecond); the returned function stops and erases it. Silent
// unless standard error is a terminal and --json is off.
func (f *demoCommon) showElapsed(what string, perSecond int) (stop func()) {
	line := newProgressLine(f.stderr, f.json)
	if line.w == nil {
		return func() {}
	}
	expect := (time.Duration(f.ticks) * time.Second / time.Duration(max(perSecond, 1))).Round(time.Second)
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				line.printf("%s: %v of about %v", what, time.Since(start).Round(time.Second), expect)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		line.clear()
	}
}

// demoServer is a tickwire server in this process for a demo's bots,
// which dial it from loopback sockets that netsim impairs, pinning its
// key unless --insecure.
type demoServer struct {
	*localRelay
	client transport.Config
	link   netsim.Link
	seed   uint64
}

// startDemoServer checks scfg and serves it on a loopback socket with the
// transport its models need.
func startDemoServer(ctx context.Context, f *demoCommon, scfg server.Config) (*demoServer, error) {
	if err := scfg.Check(); err != nil {
		return nil, err
	}
	relayCfg, err := scfg.Transport()
	if err != nil {
		return nil, err
	}
	clientCfg := relayCfg
	sec := f.sec
	sec.exemptLoopback = true // the bots all dial from loopback
	sc, err := sec.serverConfig(0)
	if err != nil {
		return nil, err
	}
	if sc != nil { // the bots pin the server's key
		relayCfg.Security = sc
		clientCfg.Security = &transport.SecurityConfig{ServerKey: sc.Identity.Public().(ed25519.PublicKey)}
	}
	key, err := sec.resultKey(sc)
	if err != nil {
		return nil, err
	}
	scfg.Certify = certifier(key, nil) // no match database: the event's record
	d, err := startLocalRelay(ctx, relayCfg, scfg)
	if err != nil {
		return nil, err
	}
	if f.dashboard != "" {
		if err := d.serveDashboard(f.dashboard, f.stderr); err != nil {
			d.stop()
			return nil, err
		}
	}
	return &demoServer{localRelay: d, client: clientCfg, link: f.link(), seed: f.seed}, nil
}

// dial connects bot i from a loopback socket of its own, impaired both
// ways with a seed of its own.
func (d *demoServer) dial(ctx context.Context, i int) (*transport.Conn, error) {
	conn, _, err := d.dialImpaired(ctx, i)
	return conn, err
}

// dialImpaired is dial, returning the impaired socket too (whose links
// a test may change mid-match).
func (d *demoServer) dialImpaired(ctx context.Context, i int) (*transport.Conn, *netsim.PacketConn, error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	impaired := netsim.Wrap(pc, netsim.Config{Seed: d.seed*1000 + uint64(i), Out: d.link, In: d.link})
	conn, err := transport.Dial(ctx, impaired, d.addr, d.client)
	if err != nil {
		impaired.Close()
		return nil, nil, err
	}
	return conn, impaired, nil
}

// localRelay is a relay server in this process, on a loopback socket.
type localRelay struct {
	srv    *server.Server
	ln     *transport.Listener
	addr   net.Addr
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startLocalRelay(ctx context.Context, tcfg transport.Config, cfg server.Config) (*localRelay, error) {
	ln, err := listenRelay(ctx, "127.0.0.1:0", 1, tcfg)
	if err != nil {
		return nil, err
	}
	return serveLocalRelay(ctx, ln, cfg), nil
}

// serveLocalRelay serves a relay server on ln until stop.
func serveLocalRelay(ctx context.Context, ln *transport.Listener, cfg server.Config) *localRelay {
	ctx, cancel := context.WithCancel(ctx)
	d := &localRelay{srv: server.New(cfg), ln: ln, addr: ln.Addr(), ctx: ctx, cancel: cancel}
	d.wg.Go(func() { d.srv.Serve(ctx, ln) })
	return d
}

// serveDashboard serves the admin endpoints and the dashboard on addr
// until stop, and prints the dashboard's URL on w.
func (d *localRelay) serveDashboard(addr string, w io.Writer) error {
	hl, err := net.Listen("tcp", addr)
	if err != nil {
		return addrFlagError("--dashboard", addr, err)
	}
	fmt.Fprintf(w, "dashboard: %s\n", dashboardURL(hl))
	d.wg.Go(func() { serveAdmin(d.ctx, hl, d.srv, d.ln, "") })
	return nil
}

// stop ends the games and closes the socket.
func (d *localRelay) stop() {
	d.cancel()
	d.wg.Wait()
	d.srv.Close()
	d.ln.Close()
}
