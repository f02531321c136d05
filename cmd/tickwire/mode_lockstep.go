package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/transport"
)

// lockstepMode is relay lockstep: every client simulates the whole
// match from the orders the relay orders and broadcasts (package
// lockstep; its bots, lockstep/lockstepbot).
type lockstepMode struct{ file lockstepFile }

func (lockstepMode) name() string                        { return "lockstep" }
func (lockstepMode) modelName() string                   { return room.Lockstep }
func (m *lockstepMode) settings() (string, modeSettings) { return "lockstep", &m.file }

// serverModels is the lockstep room model (lockstep/lockstepserver); its
// options are serve's own flags (--tps, --max-room-size, --debug-level,
// --desync-dir, --replay-dir) and the [relay.lockstep] table. Its rooms
// take rejoins.
func (m *lockstepMode) serverModels(h hostOptions) ([]room.Model, error) {
	c := m.file.config(h.maxRoomSize)
	c.DesyncDir, c.MatchTypeDebugLevels, c.Replays = h.desyncDir, h.matchDebugLevels, h.replays.lockstep()
	c.Relay.DebugLevel = h.debugLevel
	return []room.Model{lockstepserver.Model(c)}, nil
}

func (lockstepMode) demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runLockstepDemo(ctx, args, stdout, stderr)
}

func (lockstepMode) bot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runLockstepBot(ctx, args, stdout, stderr)
}

// errNotInSync makes bot and demo exit non-zero after printing a summary
// whose clients finished with different hashes or saw a desync.
var errNotInSync = errors.New("the clients are not in sync")

// botFlags are the options of "tickwire bot".
type botFlags struct {
	botCommon
	desync desyncFlags
	// the load generator of "bench relay"
	light  bool
	games  int
	rejoin rejoinFlags
}

func parseBotFlags(args []string, stderr io.Writer) (botFlags, error) {
	var f botFlags
	fs := f.flagSet(botSpec{name: "bot", server: "relay address, host:port (required)", ticks: "ticks each bot plays (required)"}, stderr)
	fs.BoolVar(&f.light, "light", false, "load generator: no simulation, one Move order per tick, a constant hash")
	fs.IntVar(&f.games, "games", 1, "with --light: fill this many rooms, ROOM-0, ROOM-1, …, of --players bots each")
	fs.StringVar(&f.joinURI, "join", "", "join the match a host shares, tickwire://join/CODE@RENDEZVOUS (see tickwire host): sets --server, --room and --server-key; --players 1")
	f.rejoin.add(fs, &f.spectate)
	f.desync.addBot(fs)
	err := f.parse(fs, args, 255, func() error {
		if f.games < 1 || (f.games > 1 && !f.light) {
			return fmt.Errorf("%w: --games must be at least 1, and only light bots play several games", errUsage)
		}
		if err := f.rejoin.check(f.players, f.ticks); err != nil {
			return err
		}
		if f.light && (f.desync.injectAt > 0 || f.desync.debugLevel > 0) {
			return fmt.Errorf("%w: light bots run no simulation to debug or corrupt", errUsage)
		}
		return f.desync.check()
	})
	return f, err
}

// runLockstepBot plays bot clients against a relay: "tickwire bot".
func runLockstepBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseBotFlags(args, stderr)
	if err != nil {
		return err
	}
	dial, err := f.dialer(lanes.TransportConfig())
	if err != nil {
		return err
	}
	join := func(ctx context.Context, i int) (lockstepbot.Client, error) {
		room := f.room
		if f.games > 1 {
			room = fmt.Sprintf("%s-%d", f.room, i/f.players)
		}
		conn, err := dial(ctx, i)
		if err != nil {
			return nil, err
		}
		return joinRoom(ctx, conn, room, f.roomSize)
	}
	cfg := lockstepbot.Config{Players: f.players * f.games, RoomSize: f.roomSize, Ticks: f.ticks, Join: join, Light: f.light,
		Desync: f.desync.config(f.ticks, f.desync.dir)}
	if err := f.rejoinBots(&cfg); err != nil {
		return err
	}
	if f.games > 1 {
		cfg.MaxJoining = 16 // stagger thousands of handshakes
	}
	var firstTick time.Time // with --join: when the first tick was applied
	if f.joined != nil {
		cfg.OnTick = func(_ int, tick uint64, at time.Time) {
			if firstTick.IsZero() {
				firstTick = at
			}
		}
	}
	r, err := lockstepbot.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := noneJoined(f.server, collect(r.Players, func(p *lockstepbot.PlayerReport) error { return p.JoinErr })); err != nil {
		return err
	}
	var report summary = lockstepReport{Report: &r}
	if f.joined != nil {
		p := pathReport{lockstepReport{Report: &r}, f.joined.route.Path, f.joined.found.Seconds() * 1000, 0}
		p.FirstTickMS = sinceMS(f.joined.start, firstTick)
		report = p
	}
	return f.report(stdout, report, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot: %d bots in room %q of %d, %d ticks, relay %s\n", f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}

// sinceMS is the time from start to at in milliseconds, or 0 (a JSON
// field left out) if at never came.
func sinceMS(start, at time.Time) float64 {
	if at.IsZero() {
		return 0
	}
	return at.Sub(start).Seconds() * 1000
}

// joinRoom joins room over conn, which the client (or, on failure,
// JoinRelay) closes.
func joinRoom(ctx context.Context, conn *transport.Conn, room string, roomSize int) (lockstepbot.Client, error) {
	c, err := lockstep.JoinRelay(ctx, conn, room, roomSize, lockstep.RelayClientConfig{})
	if err != nil {
		return nil, err // a nil *RelayClient must not become a non-nil Client
	}
	return c, nil
}

// lockstepReport is the summary of lockstep bots (bot and demo --json):
// exactly a lockstepbot.Report.
type lockstepReport struct {
	*lockstepbot.Report
	// drill, for a desync drill, is its outcome: the bots are then meant
	// to disagree, and the verdict is whether the report named the fault
	// (drillLine, the table's last line).
	drill     *error
	drillLine string
}

func (r lockstepReport) table(w io.Writer) {
	printBotReport(w, r.Report)
	if r.drill != nil {
		inSync := "no, as the drill meant: one bot's state was corrupted"
		if r.AllInSync {
			inSync = "yes: the injected desync went unseen"
		}
		fmt.Fprintf(w, "in sync: %s\n", inSync)
		fmt.Fprintln(w, r.drillLine)
		return
	}
	fmt.Fprintf(w, "in sync: %s\n", verdictLine(r.AllInSync, r.stopped(), "yes: every final hash matches, no desync"))
}

// verdict is nil when the clients agree, errStopped when bots stopped
// early, else errNotInSync: the clients finished with different hashes
// or saw a desync.
func (r lockstepReport) verdict() error {
	if r.drill != nil {
		return *r.drill
	}
	if r.AllInSync {
		return nil
	}
	if err := r.stopped(); err != nil {
		return err
	}
	return errNotInSync
}

// stopped is stoppedEarly of the bots.
func (r lockstepReport) stopped() error {
	return stoppedEarly(collect(r.Players, func(p *lockstepbot.PlayerReport) string { return p.Error }))
}

func printBotReport(w io.Writer, r *lockstepbot.Report) {
	fmt.Fprintf(w, "%4s %6s %6s %5s %7s %9s %9s %9s %4s %8s %8s  %s\n", "id", "ticks", "orders", "late", "strikes",
		"rtt p50", "rtt p99", "gap p99", "ra", "up B/s", "down B/s", "final hash")
	for _, p := range inSeatOrder(r.Players, func(p *lockstepbot.PlayerReport) int { return int(p.ID) }) {
		fmt.Fprintf(w, "%4d %6d %6d %5d %7d %7.1fms %7.1fms %7.1fms %4d %8.0f %8.0f  %s\n", p.ID, p.Ticks, p.OrdersSent,
			p.LateOrders, p.Strikes, p.RTTP50MS, p.RTTP99MS, p.TickGapP99MS, p.RunAhead, p.BytesUpPerS, p.BytesDownPerS, p.FinalHash)
		if p.Desyncs > 0 {
			fmt.Fprintf(w, "     desyncs reported: %d\n", p.Desyncs)
		}
		if p.Reconnects > 0 {
			fmt.Fprintf(w, "     reconnected %d× (longest %.0f ms from the drop to playing again)\n", p.Reconnects, p.ReconnectMS)
		}
		if p.Observer {
			fmt.Fprintf(w, "     observer: watched without a seat\n")
		}
		if d := p.InjectedDesync; d != nil {
			fmt.Fprintf(w, "     injected desync: entity %d field %s after tick %d\n", d.Entity, d.Field, d.Tick)
		}
		if p.DesyncReport != "" {
			fmt.Fprintf(w, "     desync report: %s\n", p.DesyncReport)
		}
		if p.Error != "" {
			fmt.Fprintf(w, "     stopped: %s\n", p.Error)
		}
	}
}

// demoFlags are the options of "tickwire demo".
type demoFlags struct {
	demoCommon
	reconnect bool
	desync    desyncFlags
}

func parseDemoFlags(args []string, stderr io.Writer) (demoFlags, error) {
	var f demoFlags
	fs := f.flagSet(demoSpec{name: "demo", tps: 30, latency: 40 * time.Millisecond, loss: 0.05,
		ticks: "ticks to play", seed: "seed of the network impairment", json: "print one JSON object (the bot --json summary)"}, stderr)
	fs.BoolVar(&f.reconnect, "reconnect", false, "one bot vanishes a third into the match and rejoins 2 s later through a donor's snapshot")
	f.desync.addDemo(fs)
	err := f.parse(fs, args, sim.MaxPlayers, func() error {
		if f.desync.inject && (f.players < 2 || f.ticks < demoInjectTick(f.ticks)+60) {
			return fmt.Errorf("%w: --inject-desync needs at least 2 players and 120 ticks", errUsage)
		}
		return f.desync.check()
	})
	return f, err
}

// runLockstepDemo plays a whole relay match in one process over real
// loopback UDP sockets: a relay server and one bot client per player, each
// client's socket impaired by netsim. It prints the bot summary and fails
// unless every client ends with the same state hash and no desync.
func runLockstepDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	line := newProgressLine(stderr, f.json)
	progress := func(p lockstepbot.Progress) {
		if p.Playing < f.players {
			line.printf("joining and calibrating: %d/%d bots playing", p.Playing, f.players)
			return
		}
		line.printf("tick %d/%d  late orders %d  rtt %v  desyncs %d",
			p.Tick, p.Ticks, p.LateOrders, p.RTT.Round(time.Millisecond), p.Desyncs)
	}
	r, st, err := playDemo(ctx, f, progress)
	line.clear()
	if err != nil {
		return err
	}
	report := lockstepReport{Report: &r}
	if f.desync.inject {
		path, err := checkDrill(&r, f.desync.dir)
		report.drill = &err
		report.drillLine = fmt.Sprintf("desync drill: %s names the injected entity and field: %s", path, yesNo(err == nil, "yes, the drill passed"))
	}
	return printReport(stdout, report, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo: %d bots, %d ticks at %d tps, %s\n", f.players, f.ticks, f.tps, f.impairment())
		fmt.Fprintf(w, "relay: %d late orders, %d strikes given, %d QoS adjustments, %d desyncs, %d bytes in, %d bytes out\n",
			st.lockstep.LateOrders, st.lockstep.Strikes, st.lockstep.QosAdjustments, st.lockstep.Desyncs, st.BytesIn, st.BytesOut)
	})
}

// playDemo runs the demo's match: a relay server on a loopback socket and
// f.players bots whose sockets netsim impairs. It returns the bots'
// summary and the relay's figures at the end.
func playDemo(ctx context.Context, f demoFlags, progress func(lockstepbot.Progress)) (lockstepbot.Report, relayFigures, error) {
	lc := new(lockstepFile).config(0)
	lc.DesyncDir = f.desync.dir
	lc.Relay.DebugLevel = uint8(f.desync.debugLevel)
	ls := lockstepserver.New(lc)
	d, err := startDemoServer(ctx, &f.demoCommon, server.Config{TickRate: f.tps, Models: []room.Model{ls.Model()}})
	if err != nil {
		return lockstepbot.Report{}, relayFigures{}, err
	}
	defer d.stop()
	join := func(ctx context.Context, i int) (lockstepbot.Client, error) {
		conn, err := d.dial(ctx, i)
		if err != nil {
			return nil, err
		}
		return joinRoom(ctx, conn, "demo", f.players)
	}
	cfg := lockstepbot.Config{Players: f.players, Ticks: f.ticks, Join: join, OnProgress: progress,
		Desync: f.desync.config(f.ticks, "")}
	if f.reconnect {
		cfg.Join, cfg.Rejoin = demoReconnect(d, f)
	}
	r, err := lockstepbot.Run(ctx, cfg)
	return r, relayFigures{d.srv.Stats(), ls.Stats()}, err
}

// relayFigures are a lockstep relay's figures: the server's and its
// lockstep model's.
type relayFigures struct {
	server.Stats
	lockstep lockstepserver.Stats
}

func (r lockstepReport) certificates() []json.RawMessage {
	return certsOf(r.Players, func(p *lockstepbot.PlayerReport) json.RawMessage { return p.Certificate })
}
