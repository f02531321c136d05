package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/transport"
)

// serveFlags are the options of "tickwire serve" (and of its alias,
// "tickwire relay").
type serveFlags struct {
	config         string
	listen         string
	admin          string
	adminToken     string
	tps            int
	maxGames       int
	maxConns       int
	readers        int
	maxRoomSize    int
	waitingTimeout time.Duration
	maxWaiting     int
	messageRate    int
	messageBurst   int
	defaultModel   string
	play           string
	checkConfig    bool
	json           bool
	debugLevel     int
	desyncDir      string
	sec            securityFlags
	op             operatorFlags
	rep            replayOptions
	// from the configuration file only
	matchTypes     map[string]string
	matchDebug     map[string]uint8
	allowRequested bool
	// the network models hosted: every mode, with its settings from the
	// file, and the room models they make
	modes  []mode
	models []room.Model
}

func parseServeFlags(args []string, stderr io.Writer) (serveFlags, error) {
	f := serveFlags{modes: modes()}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.config, "config", "", "server configuration file (TOML, see server_config.toml); flags override it")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:7777", "UDP address for clients")
	fs.StringVar(&f.admin, "admin", "127.0.0.1:7778", "HTTP address for /healthz, /readyz, /metrics, the API /api/v1/ and the dashboard /dashboard/ (empty: none)")
	fs.StringVar(&f.adminToken, "admin-token", "", "bearer token the admin address asks for (all but /healthz, /readyz and the page); use it when --admin is not loopback")
	fs.IntVar(&f.tps, "tps", 30, "ticks per second")
	fs.IntVar(&f.maxGames, "max-games", server.DefaultMaxGames, "concurrent games (rooms, waiting or playing), -1 for no limit")
	fs.IntVar(&f.maxConns, "max-conns", 16384, "concurrent client connections (of each socket, with --readers)")
	fs.IntVar(&f.readers, "readers", 1, fmt.Sprintf("UDP sockets on the --listen port (SO_REUSEPORT), each with its read loop; 0 means 1, at most %d", maxReaders))
	fs.IntVar(&f.maxRoomSize, "max-room-size", relay.MaxPlayers, "players of a lockstep room at most")
	fs.DurationVar(&f.waitingTimeout, "waiting-timeout", server.DefaultWaitingTimeout, "a room not full this long after its first join expires (0: never)")
	fs.IntVar(&f.maxWaiting, "max-waiting-per-addr", server.DefaultMaxWaitingPerAddr, "waiting rooms one IP address may have created, -1 for no limit")
	fs.IntVar(&f.messageRate, "message-rate", 0, "inbound messages per second per connection (default 4 × --tps)")
	fs.IntVar(&f.messageBurst, "message-burst", 0, "inbound message burst per connection (default 4 × --tps)")
	fs.StringVar(&f.defaultModel, "default-network-model", room.Lockstep, "network model of rooms whose match type names none ("+strings.Join(hostedModels(), ", ")+")")
	fs.StringVar(&f.play, "play", "", "HTTP address serving the playable page at / and the WebSocket endpoint at /ws (empty: none); the page joins ?room=NAME&size=N, default a prediction room \"play\" of 1")
	fs.IntVar(&f.debugLevel, "debug-level", 0, "desync debug level of lockstep rooms, told to their clients: 1 order log, 2 + cache validation, 3 + snapshots")
	fs.StringVar(&f.desyncDir, "desync-dir", ".", "directory of lockstep rooms' desync reports, desync_report_{seed}_{tick}.json (empty: none written)")
	fs.BoolVar(&f.checkConfig, "check-config", false, "check the configuration (file and flags), print what the server would run and exit")
	fs.BoolVar(&f.json, "json", false, "print the startup line (or --check-config's) on standard output as one JSON object, and a failure as {\"error\": {\"kind\", \"message\"}}")
	f.op.register(fs)
	f.rep.register(fs)
	f.sec.addServer(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if f.config != "" {
		fc, err := loadConfig(f.config, f.modes)
		if err != nil {
			return f, fmt.Errorf("%w: %w", errConfig, err)
		}
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		f.merge(&fc, set)
	}
	switch {
	case f.tps < 1 || f.tps > 1000:
		return f, fmt.Errorf("%w: --tps must be 1..1000", errUsage)
	case f.maxGames < -1 || f.maxGames == 0 || f.maxConns < 1:
		return f, fmt.Errorf("%w: --max-games must be positive or -1, --max-conns positive", errUsage)
	case f.maxRoomSize < 1 || f.maxRoomSize > relay.MaxPlayers:
		return f, fmt.Errorf("%w: --max-room-size must be 1..%d", errUsage, relay.MaxPlayers)
	case f.waitingTimeout < 0 || f.maxWaiting < -1 || f.maxWaiting == 0 || f.messageRate < 0 || f.messageBurst < 0:
		return f, fmt.Errorf("%w: --waiting-timeout, --message-rate and --message-burst must not be negative, --max-waiting-per-addr positive or -1", errUsage)
	case f.readers < 0 || f.readers > maxReaders:
		return f, fmt.Errorf("%w: --readers (relay.readers) must be 0..%d", errUsage, maxReaders)
	case f.debugLevel < 0 || f.debugLevel > msg.MaxDebugLevel:
		return f, fmt.Errorf("%w: --debug-level (relay.debug_level) must be 0..%d", errUsage, msg.MaxDebugLevel)
	case f.sec.maxPerAddr < 1:
		return f, fmt.Errorf("%w: --max-conns-per-addr (relay.max_conns_per_addr) must be at least 1", errUsage)
	case f.op.drainTimeout < 0:
		return f, fmt.Errorf("%w: --drain-timeout (relay.drain_timeout) must not be negative", errUsage)
	}
	if _, err := tracker.Clients(f.op.trackers); err != nil {
		return f, fmt.Errorf("%w: --tracker (relay.trackers): %v", errUsage, err)
	}
	if err := checkModel("--default-network-model", f.defaultModel, hostedModels()); err != nil {
		return f, fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := f.rep.setUp(&f.sec); err != nil {
		return f, err
	}
	for _, m := range f.modes {
		models, err := m.serverModels(hostOptions{tickRate: f.tps, maxRoomSize: f.maxRoomSize,
			debugLevel: uint8(f.debugLevel), desyncDir: f.desyncDir, matchDebugLevels: f.matchDebug, replays: f.rep})
		if err != nil {
			return f, fmt.Errorf("%w: %v", errUsage, err)
		}
		f.models = append(f.models, models...)
	}
	return f, nil
}

// merge takes the file's values for the options not set on the command
// line.
func (f *serveFlags) merge(fc *fileConfig, set map[string]bool) {
	r := &fc.Relay
	take := func(flagName string, dst *int, v *int) {
		if v != nil && !set[flagName] {
			*dst = *v
		}
	}
	takeString := func(flagName string, dst *string, v *string) {
		if v != nil && !set[flagName] {
			*dst = *v
		}
	}
	takeString("listen", &f.listen, r.Listen)
	takeString("admin", &f.admin, r.Admin)
	takeString("admin-token", &f.adminToken, r.AdminToken)
	takeString("default-network-model", &f.defaultModel, r.DefaultNetworkModel)
	take("tps", &f.tps, r.TickRate)
	take("max-games", &f.maxGames, r.MaxGames)
	take("max-conns", &f.maxConns, r.MaxConns)
	take("readers", &f.readers, r.Readers)
	take("max-room-size", &f.maxRoomSize, r.MaxRoomSize)
	take("max-waiting-per-addr", &f.maxWaiting, r.MaxWaitingRooms)
	take("max-conns-per-addr", &f.sec.maxPerAddr, r.MaxConnsPerAddr)
	take("message-rate", &f.messageRate, r.MessageRate)
	take("message-burst", &f.messageBurst, r.MessageBurst)
	take("debug-level", &f.debugLevel, r.DebugLevel)
	takeString("desync-dir", &f.desyncDir, r.DesyncDir)
	if r.WaitingRoomTimeout != nil && !set["waiting-timeout"] {
		f.waitingTimeout = r.WaitingRoomTimeout.Duration
	}
	if len(r.MatchTypes) > 0 {
		f.matchTypes = make(map[string]string, len(r.MatchTypes))
		for name, mt := range r.MatchTypes {
			f.matchTypes[name] = mt.NetworkModel
			if mt.DebugLevel != nil {
				if f.matchDebug == nil {
					f.matchDebug = map[string]uint8{}
				}
				f.matchDebug[name] = uint8(*mt.DebugLevel)
			}
		}
	}
	if r.AllowRequestedNetworkModel != nil {
		f.allowRequested = *r.AllowRequestedNetworkModel
	}
	takeString("db", &f.op.db, r.DB)
	takeString("public-addr", &f.op.publicAddr, r.PublicAddr)
	takeString("tracker-token", &f.op.trackerToken, r.TrackerToken)
	takeString("region", &f.op.region, r.Region)
	takeString("replay-dir", &f.rep.dir, r.ReplayDir)
	if len(r.Trackers) > 0 && !set["tracker"] {
		f.op.trackers = r.Trackers
	}
	if r.Agones != nil && !set["agones"] {
		f.op.agones = *r.Agones
	}
	if r.AgonesOneMatch != nil && !set["agones-one-match"] {
		f.op.oneMatch = *r.AgonesOneMatch
	}
	if r.DrainTimeout != nil && !set["drain-timeout"] {
		f.op.drainTimeout = r.DrainTimeout.Duration
	}
}

// serverConfig is the server's configuration from the options: every
// mode's models.
func (f *serveFlags) serverConfig(log *slog.Logger) server.Config {
	cfg := server.Config{TickRate: f.tps, MaxGames: f.maxGames, WaitingTimeout: f.waitingTimeout,
		MaxWaitingPerAddr: f.maxWaiting, MessageRate: f.messageRate, MessageBurst: f.messageBurst,
		DefaultModel: f.defaultModel, MatchTypes: f.matchTypes, AllowRequestedModel: f.allowRequested, Logger: log,
		Models: f.models}
	if cfg.WaitingTimeout == 0 {
		cfg.WaitingTimeout = -1 // the flag's 0 means never
	}
	return cfg
}

// runServe hosts games of every network model until ctx ends (SIGINT or
// SIGTERM): "tickwire serve", alias "tickwire relay".
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	scfg := f.serverConfig(log)
	if err := scfg.Check(); err != nil {
		return err
	}
	if err := f.checkPlaces(); err != nil {
		return fmt.Errorf("%w: %v", errConfig, err)
	}
	if f.checkConfig {
		return f.printConfigOK(stdout)
	}
	op, err := newOperator(ctx, f.op, &scfg, log)
	if err != nil {
		return err
	}
	op.maxGames = f.maxGames
	op.replays = f.rep.done.keeping(op.db != nil)
	defer op.close()
	tcfg, err := scfg.Transport()
	if err != nil {
		return err
	}
	tcfg.MaxConnections = f.maxConns
	tcfg.AcceptBacklog = 1024
	if tcfg.Security, err = f.sec.serverConfig(f.maxConns); err != nil {
		return err
	}
	resultKey, err := f.sec.resultKey(tcfg.Security)
	if err != nil {
		return err
	}
	op.certify(&scfg, resultKey)
	ln, err := listenRelay(ctx, f.listen, f.readers, tcfg)
	if err != nil {
		return addrFlagError("--listen", f.listen, err)
	}
	scfg.RequireToken = tcfg.Security != nil && tcfg.Security.Matchmaker != nil
	srv := server.New(scfg)
	// The server and its admin outlive ctx (SIGTERM) by the drain.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	defer endLife()
	var wg sync.WaitGroup
	var adminErr error
	notReady := func() {}
	up := f.startup()
	if f.admin != "" {
		hl, err := net.Listen("tcp", f.admin)
		if err != nil {
			ln.Close()
			return addrFlagError("--admin", f.admin, err)
		}
		if f.adminToken == "" && !isLoopback(f.admin) {
			log.Warn("admin address is not loopback and has no --admin-token: anyone who reaches it sees every room", "addr", f.admin)
		}
		adm := newAdmin(srv, ln, f.adminToken, op.metrics)
		op.addChecks(adm)
		notReady = func() { adm.SetReady(false) }
		wg.Go(func() { adminErr = serveAdminWith(life, hl, adm, srv) })
		log.Info("admin listening", "addr", hl.Addr().String(), "dashboard", dashboardURL(hl))
		up.Admin, up.Dashboard = hl.Addr().String(), dashboardURL(hl)
	}
	if f.play != "" {
		ps, err := startPlay(ctx, f.play, ln, publicKey(tcfg.Security), joinFromQuery(f.predictArena()))
		if err != nil {
			ln.Close()
			return err
		}
		defer ps.stop()
		log.Info("play page", "url", ps.url)
		up.Play = ps.url
	}
	log.Info("server listening", "addr", ln.Addr().String(), "tps", f.tps, "max_games", f.maxGames, "default_network_model", f.defaultModel,
		"encrypted", tcfg.Security != nil, "public_key", publicKeyHex(tcfg.Security),
		"match_result_key", hex.EncodeToString(resultKey.Public().(ed25519.PublicKey)),
		"tokens_required", scfg.RequireToken)
	up.Listen, up.Encrypted, up.PublicKey = ln.Addr().String(), tcfg.Security != nil, publicKeyHex(tcfg.Security)
	up.MatchResultKey, up.TokensRequired = hex.EncodeToString(resultKey.Public().(ed25519.PublicKey)), scfg.RequireToken
	if err := f.printStartup(stdout, up); err != nil {
		ln.Close()
		return err
	}
	wg.Go(func() { op.run(life, srv, ln.Addr().String(), publicKeyHex(tcfg.Security)) })
	served := make(chan error, 1)
	go func() { served <- srv.Serve(life, ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
		// SIGTERM: with a drain timeout, no new rooms and not ready while
		// the running matches finish; then stop accepting.
		op.drain(srv, notReady)
		endLife()
		err = <-served
	}
	// Shutting down: end the games, close their connections gracefully,
	// then the socket.
	endLife()
	srv.Close()
	ln.Close()
	wg.Wait()
	if (errors.Is(err, context.Canceled) || errors.Is(err, server.ErrClosed)) && ctx.Err() != nil {
		err = nil
	}
	log.Info("server stopped")
	return errors.Join(err, adminErr)
}

// socketBuffer is the kernel buffer size asked for the relay's socket in
// each direction: one socket carries every player's traffic, and at tick
// boundaries hundreds of games' submissions arrive together. The default
// (about 200 KiB on Linux) overflows from about a hundred games on, and
// every datagram dropped there is an order late by a retransmission. The
// kernel caps the request (net.core.rmem_max, wmem_max).
const socketBuffer = 4 << 20

// maxReaders bounds --readers: a read loop per socket, and more sockets
// than cores only share the cores.
const maxReaders = 256

// listenRelay opens the relay's UDP sockets, readers of them on addr
// (SO_REUSEPORT, one read loop each), every one with socketBuffer in
// each direction, and accepts transport connections on them.
func listenRelay(ctx context.Context, addr string, readers int, tcfg transport.Config) (*transport.Listener, error) {
	return transport.ListenUDPReaders(ctx, addr, transport.Sockets{Readers: readers, Buffer: socketBuffer}, tcfg)
}

// adminSource exposes a relay server's figures (and its listener's
// handshake refusals, and extra's series when set) to the admin endpoint.
func adminSource(srv *server.Server, ln *transport.Listener, extra func() []admin.Metric) admin.Source {
	return admin.SourceFunc(func() admin.Stats {
		st := srv.Stats()
		sendErrors := make(map[string]uint64, server.NumSendCauses)
		for c := range server.NumSendCauses {
			sendErrors[c.String()] = st.SendErrors[c]
		}
		a := admin.Stats{
			ActiveGames: st.ActiveGames,
			Players:     st.Players,
			BytesIn:     st.BytesIn,
			BytesOut:    st.BytesOut,
			SendErrors:  sendErrors,
			Extra:       st.AdminMetrics(),
		}
		if extra != nil {
			a.Extra = append(a.Extra, extra()...)
		}
		addFigures(&a, st, ln.Stats())
		return a
	})
}

// predictArena is the prediction rooms' arena_size ([relay.prediction]),
// which the play page's clients must share.
func (f *serveFlags) predictArena() int {
	for _, m := range f.modes {
		if pm, ok := m.(*predictMode); ok {
			return pm.file.ArenaSize
		}
	}
	return 0
}

// checkPlaces checks, as the start would find, that the listen addresses
// are addresses (with a port in range) and that the match database's
// directory exists: --check-config then fails where the start would.
func (f *serveFlags) checkPlaces() error {
	addrs := []struct{ name, network, addr string }{
		{"--listen (relay.listen)", "udp", f.listen},
		{"--admin (relay.admin)", "tcp", f.admin},
		{"--play", "tcp", f.play},
	}
	for _, a := range addrs {
		if a.addr == "" {
			continue
		}
		_, port, err := net.SplitHostPort(a.addr)
		if err != nil {
			return fmt.Errorf("%s %q: %v (want host:port)", a.name, a.addr, err)
		}
		if _, err := net.LookupPort(a.network, port); err != nil {
			return fmt.Errorf("%s %q: port %q is not 0..65535", a.name, a.addr, port)
		}
	}
	if f.op.db != "" {
		dir := filepath.Dir(f.op.db)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("--db (relay.db) %q: directory %q does not exist", f.op.db, dir)
		}
		if st, err := os.Stat(f.op.db); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("--db (relay.db) %q is not a file", f.op.db)
		}
	}
	return nil
}
