package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim"
)

// fogMode is the fog-of-war authoritative model: the server simulates,
// each client receives only what its units see (packages fogauth,
// fogauth/fogserver; the client and its bots, fogauth/fogclient).
type fogMode struct {
	// file is the [relay.fogauth] table.
	file fogAuthFile
}

func (*fogMode) name() string      { return "fogauth" }
func (*fogMode) modelName() string { return room.FogAuthoritative }

func (m *fogMode) settings() (string, modeSettings) { return "fogauth", &m.file }

func (m *fogMode) serverModels(h hostOptions) ([]room.Model, error) {
	c := m.file.config(h.tickRate)
	c.Replays = fogserver.Replays{Config: h.replays.config(), Game: "rts"}
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("relay.fogauth: %v", err)
	}
	return []room.Model{fogserver.Model(c)}, nil
}

// fogAuthFile is the [relay.fogauth] table: the fog-authoritative
// model's settings (the seed's names). A zero field is unset.
type fogAuthFile struct {
	BandwidthPerClientKbps int `toml:"bandwidth_per_client_kbps"`
	MaxEntitiesPerUpdate   int `toml:"max_entities_per_update"`
	// PriorityStalenessBonus is nil when unset: 0 is a setting (no bonus).
	PriorityStalenessBonus *int `toml:"priority_staleness_bonus"`
	TickRate               int  `toml:"tick_rate"`
	MaxConcurrentGames     int  `toml:"max_concurrent_games"`
	// MaxSpectators is the spectators one room takes (0: none).
	MaxSpectators int `toml:"max_spectators"`
	// SpectatorFullMap lets spectators see the whole map (tournament
	// casting) instead of the union of the players' views.
	SpectatorFullMap bool `toml:"spectator_full_map"`
}

func (f *fogAuthFile) check() error {
	for _, c := range []struct {
		key string
		v   int
	}{
		{"relay.fogauth.bandwidth_per_client_kbps", f.BandwidthPerClientKbps},
		{"relay.fogauth.max_entities_per_update", f.MaxEntitiesPerUpdate},
		{"relay.fogauth.tick_rate", f.TickRate},
		{"relay.fogauth.max_concurrent_games", f.MaxConcurrentGames},
	} {
		if c.v < 0 {
			return fmt.Errorf("%s: %d is negative", c.key, c.v)
		}
	}
	if b := f.PriorityStalenessBonus; b != nil && (*b < 0 || *b > fogauth.MaxStalenessBonus) {
		return fmt.Errorf("relay.fogauth.priority_staleness_bonus: %d is outside 0..%d", *b, fogauth.MaxStalenessBonus)
	}
	if f.MaxSpectators < 0 || f.MaxSpectators > 64 {
		return fmt.Errorf("relay.fogauth.max_spectators: %d is outside 0..64 (0 takes none)", f.MaxSpectators)
	}
	return nil
}

// config is the fog-authoritative model's configuration (0 = the seed's
// default; the server's tick rate when tick_rate is unset).
func (f *fogAuthFile) config(serverTickRate int) fogserver.Config {
	c := fogserver.Config{NewGame: rtsFog, MaxConcurrentGames: f.MaxConcurrentGames, MaxSpectators: f.MaxSpectators}
	c.Room.FullMapSpectators = f.SpectatorFullMap
	c.Room.BandwidthPerClientKbps = f.BandwidthPerClientKbps
	c.Room.MaxEntitiesPerUpdate = f.MaxEntitiesPerUpdate
	if b := f.PriorityStalenessBonus; b != nil {
		c.Room.StalenessBonus = *b
		if *b == 0 {
			c.Room.StalenessBonus = fogauth.NoStalenessBonus
		}
	}
	c.Room.TickRate = f.TickRate
	if c.Room.TickRate == 0 {
		c.Room.TickRate = serverTickRate
	}
	return c
}

// fogDemoFlags are the options of "tickwire demo --mode fogauth".
type fogDemoFlags struct {
	demoCommon
	units int
	kbps  int
}

func parseFogDemoFlags(args []string, stderr io.Writer) (fogDemoFlags, error) {
	var f fogDemoFlags
	fs := f.flagSet(demoSpec{name: "demo --mode fogauth", tps: 30, latency: 40 * time.Millisecond, loss: 0.05,
		ticks: "ticks each bot plays", seed: "seed of the map and of the network impairment", json: "print one JSON object"}, stderr)
	fs.IntVar(&f.units, "units", 50, "starting units per player")
	fs.IntVar(&f.kbps, "kbps", 64, "state budget per client, KiB/s (bandwidth_per_client_kbps)")
	err := f.parse(fs, args, sim.MaxPlayers, func() error {
		if f.units < 1 || f.units > 1000 {
			return fmt.Errorf("%w: --units must be 1..1000", errUsage)
		}
		return nil
	})
	return f, err
}

// demo plays a fog-authoritative match in one process over real
// loopback UDP sockets: a server hosting one fog room, and one bot
// client per player, each client's socket impaired by netsim. It prints
// the summary and fails unless every client ends consistent.
func (*fogMode) demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFogDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	var timing struct {
		sync.Mutex
		tick, cost time.Duration
	}
	fog := fogserver.Config{NewGame: rtsFog, UnitsPerPlayer: f.units, Seed: func() uint64 { return f.seed },
		OnEnd: func(_ string, tickP99, costP99 time.Duration) {
			timing.Lock()
			timing.tick, timing.cost = tickP99, costP99
			timing.Unlock()
		}}
	fog.Room.TickRate, fog.Room.BandwidthPerClientKbps = f.tps, f.kbps
	d, err := startDemoServer(ctx, &f.demoCommon,
		server.Config{TickRate: f.tps, Models: []room.Model{fogserver.Model(fog)}, DefaultModel: room.FogAuthoritative})
	if err != nil {
		return err
	}
	defer d.stop()
	stop := f.showElapsed(fmt.Sprintf("fogauth: %d bots playing %d ticks", f.players, f.ticks), f.tps)
	r, err := fogclient.RunBots(ctx, fogclient.BotRun{NewBot: rtsBot, NewProber: rtsProber, Players: f.players, Ticks: f.ticks, Room: "demo", RoomSize: f.players,
		Dial: d.dial, Settle: 30 * time.Second})
	stop()
	if err != nil {
		return err
	}
	// Players' MatchEnds carry no room timing; the demo's own server tells it.
	timing.Lock()
	r.ServerTickP99MS, r.ServerCostExclSimP99US = float64(timing.tick)/1e6, float64(timing.cost)/1e3
	timing.Unlock()
	return printReport(stdout, fogReport{&r}, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo --mode fogauth: %d bots, %d ticks at %d tps, %d units each, %s\n",
			f.players, f.ticks, f.tps, f.units, f.impairment())
	})
}

// fogBotFlags are the options of "tickwire bot --mode fogauth".
type fogBotFlags struct {
	botCommon
	dump      string
	matchType string
	reconnect uint64
	cheat     bool
}

func parseFogBotFlags(args []string, stderr io.Writer) (fogBotFlags, error) {
	var f fogBotFlags
	fs := f.flagSet(botSpec{name: "bot --mode fogauth", server: "server address, host:port (required)",
		ticks: "ticks each bot plays before it is done (required)"}, stderr)
	fs.StringVar(&f.matchType, "match-type", "", "match type asked for in the join (e.g. tournament, mapped to fog_authoritative by the server)")
	fs.StringVar(&f.dump, "dump", "", "write every StateUpdate received to this file, one JSON object per line")
	fs.BoolVar(&f.spectate, "spectate", false, "join a playing room as --players spectators (default 1) and watch until the match ends")
	fs.Uint64Var(&f.reconnect, "reconnect-after", 0, "test knob: each bot drops its connection after this many ticks and rejoins its seat")
	fs.BoolVar(&f.cheat, "cheat", false, "hostile bots: probe hidden ids, build cells they cannot see and attacks on targets they do not hold, and report what the answers revealed (inferred_hidden_entities, which must be 0)")
	err := f.parse(fs, args, sim.MaxPlayers, func() error {
		switch {
		case f.spectate && f.reconnect > 0:
			return fmt.Errorf("%w: --reconnect-after is for players, not --spectate", errUsage)
		case f.cheat && (f.spectate || f.reconnect > 0):
			return fmt.Errorf("%w: --cheat is for players that stay connected (not with --spectate or --reconnect-after)", errUsage)
		}
		return nil
	})
	return f, err
}

// bot plays fog-authoritative bot clients against a server.
func (*fogMode) bot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFogBotFlags(args, stderr)
	if err != nil {
		return err
	}
	dial, err := f.dialer(lanes.TransportConfig()) // every connection to a tickwire server has the server's lanes
	if err != nil {
		return err
	}
	r, err := fogclient.RunBots(ctx, fogclient.BotRun{NewBot: rtsBot, NewProber: rtsProber, Players: f.players, Ticks: f.ticks, Room: f.room, RoomSize: f.roomSize,
		Dial: dial, Dump: f.dump, MatchType: f.matchType, Settle: time.Minute, Spectate: f.spectate, ReconnectAfter: f.reconnect, Cheat: f.cheat})
	if err != nil {
		return err
	}
	if err := noneJoined(f.server, collect(r.Players, func(p *fogclient.PlayerReport) error { return p.JoinErr })); err != nil {
		return err
	}
	return f.report(stdout, fogReport{&r}, func(w io.Writer) {
		if f.spectate {
			fmt.Fprintf(w, "tickwire bot --mode fogauth --spectate: %d spectators of room %q, server %s\n", f.players, f.room, f.server)
			return
		}
		cheat := ""
		if f.cheat {
			cheat = " --cheat"
		}
		fmt.Fprintf(w, "tickwire bot --mode fogauth%s: %d bots in room %q of %d, %d ticks, server %s\n", cheat, f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}

// errInconsistent makes "bot --mode fogauth" and "demo --mode fogauth"
// exit non-zero after a summary in which a client's partial world did
// not match the server's truth of its view.
var errInconsistent = errors.New("a client's partial world differs from the server's truth")

// errMaphack makes "bot --mode fogauth --cheat" exit non-zero when the
// server's answers revealed a hidden entity.
var errMaphack = errors.New("a cheating bot inferred hidden entities")

// fogReport is the summary of fog-authoritative bots (bot and demo
// --json): exactly a fogclient.Report.
type fogReport struct{ *fogclient.Report }

func (r fogReport) table(w io.Writer) {
	fmt.Fprintf(w, "%4s %6s %8s %8s %9s %9s %7s %8s %6s %5s %6s %9s  %s\n", "id", "ticks", "entities", "updates",
		"down B/s", "up B/s", "enters", "updated", "leaves", "snaps", "reject", "max stale", "consistent")
	for _, p := range inSeatOrder(r.Players, func(p *fogclient.PlayerReport) int { return int(p.ID) }) {
		fmt.Fprintf(w, "%4d %6d %8d %8d %9.0f %9.0f %7d %8d %6d %5d %6d %9d  %v\n", p.ID, p.Ticks, p.EntitiesTracked,
			p.UpdatesReceived, p.BytesDownPerS, p.BytesUpPerS, p.Enters, p.Updates, p.Leaves, p.Snaps, p.Rejections, p.MaxStaleTicks, p.Consistent)
		if p.Error != "" {
			fmt.Fprintf(w, "     stopped: %s\n", p.Error)
		}
	}
	fmt.Fprintf(w, "network model %s; server tick p99 %.3f ms, cost excluding the simulation p99 %.0f µs\n",
		r.NetworkModel, r.ServerTickP99MS, r.ServerCostExclSimP99US)
	fmt.Fprintf(w, "consistent: %v\n", r.AllConsistent)
	if n := r.InferredHiddenEntities; n != nil {
		fmt.Fprintf(w, "hidden entities inferred by the cheating bots: %d\n", *n)
	}
}

// verdict is errMaphack if --cheat bots inferred a hidden entity,
// errStopped if bots stopped early, errInconsistent unless every client
// ended consistent.
func (r fogReport) verdict() error {
	switch {
	case r.InferredHiddenEntities != nil && *r.InferredHiddenEntities > 0:
		return errMaphack
	case r.AllConsistent:
		return nil
	}
	if err := stoppedEarly(collect(r.Players, func(p *fogclient.PlayerReport) string { return p.Error })); err != nil {
		return err
	}
	return errInconsistent
}

func (r fogReport) certificates() []json.RawMessage {
	return certsOf(r.Players, func(p *fogclient.PlayerReport) json.RawMessage { return p.Certificate })
}
