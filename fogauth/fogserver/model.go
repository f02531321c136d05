package fogserver

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
)

// Lanes of a fog-authoritative connection: the server's lanes.
const (
	LaneReliable = lanes.Orders  // orders and Done up; MatchStart, Rejection, MatchEnd down
	LaneAck      = lanes.Control // Acks up (unreliable sequenced; each names a StateUpdate several times)
	LaneState    = lanes.State   // StateUpdates down (unreliable)
)

// Config configures the fog-authoritative rooms of a server. The zero
// value is the seed's defaults, with 50-unit armies and matches that last
// until every player is done.
type Config struct {
	// Room is the [relay.fogauth] settings of every room.
	Room fogauth.Config
	// MaxConcurrentGames is max_concurrent_games: beyond it a join that
	// would open a fog room is refused ("server at capacity"). 0 means
	// only the server's own game limit.
	MaxConcurrentGames int
	// NewGame starts a room's game (required): players seats, the
	// UnitsPerPlayer setting, the public map seed (MatchStart carries it)
	// and the secret simulation seed (never sent; see fogauth.New). It
	// returns the game and the map's size for MatchStart. The reference
	// RTS's is rtsgame.Start.
	NewGame func(players, unitsPerPlayer int, mapSeed, simSeed uint64) (game fogauth.Game, mapSize int, err error)
	// MaxRoomSize bounds the players of a room; 0 means 8.
	MaxRoomSize int
	// UnitsPerPlayer is the starting army a game's map gets (NewGame and
	// MatchStart carry it); 0 means 50.
	UnitsPerPlayer int
	// MatchTicks ends a match after that many ticks (then every seat gets
	// its final view and a MatchEnd); 0 plays until every seat is gone.
	MatchTicks int
	// SettleTimeout bounds the wait for every seat to acknowledge its
	// final view; 0 means 10 s.
	SettleTimeout time.Duration
	// RejoinTimeout is a player's rejoin window: how long a room whose
	// players are all gone keeps playing for one of them to rejoin before
	// it ends, and how long a gone player is waited for before the others'
	// Done can end the match without its own; 0 means 30 s.
	RejoinTimeout time.Duration
	// MaxSpectators is max_spectators: the spectators one room takes
	// (they see the union of the players' views, or everything with
	// Room.FullMapSpectators, and give no orders). 0 takes none: a
	// spectator connection live beside a player's is a maphack for that
	// player (see ARCHITECTURE.md), so an operator opts in.
	MaxSpectators int
	// Seed, if set, gives each room's map seed (public: MatchStart
	// carries it); nil draws it from crypto/rand. The simulation's seed
	// is always drawn from crypto/rand, apart, and never sent (see
	// fogauth.New).
	Seed func() uint64
	// OnTick, if set, is called on a room's goroutine after each tick's
	// StateUpdates are built, with the room's name and core (for tests
	// and tools that check what was sent against the truth). It must not
	// change the core.
	OnTick func(room string, core *fogauth.Room)
	// OnEnd, if set, is called on a room's goroutine when it sends its
	// MatchEnds, with the room's 99th percentile tick time and cost
	// excluding the simulation (which only spectators' MatchEnds carry).
	OnEnd func(room string, tickP99, costP99 time.Duration)
	// Replays, with a directory, records every match (replay.go).
	Replays Replays
}

func (c Config) withDefaults() Config {
	c.Room = c.Room.WithDefaults()
	c.Replays.Config = c.Replays.WithKey()
	if c.MaxRoomSize == 0 {
		c.MaxRoomSize = 8
	}
	if c.UnitsPerPlayer == 0 {
		c.UnitsPerPlayer = 50
	}
	if c.SettleTimeout == 0 {
		c.SettleTimeout = 10 * time.Second
	}
	if c.RejoinTimeout == 0 {
		c.RejoinTimeout = 30 * time.Second
	}
	return c
}

// Check reports the first bad setting, naming its configuration key.
func (c Config) Check() error {
	if err := c.Room.Validate(); err != nil {
		return err
	}
	switch {
	case c.MaxConcurrentGames < 0:
		return fmt.Errorf("%w: max_concurrent_games %d (at least 0)", fogauth.ErrConfig, c.MaxConcurrentGames)
	case c.NewGame == nil:
		return fmt.Errorf("%w: no NewGame: the model hosts no game", fogauth.ErrConfig)
	case c.MaxRoomSize < 0 || c.MaxRoomSize > fogauth.MaxPlayers:
		return fmt.Errorf("%w: max room size %d (1..%d)", fogauth.ErrConfig, c.MaxRoomSize, fogauth.MaxPlayers)
	case c.MaxSpectators < 0 || c.MaxSpectators > 64:
		return fmt.Errorf("%w: max_spectators %d (0..64)", fogauth.ErrConfig, c.MaxSpectators)
	case c.UnitsPerPlayer < 0 || c.UnitsPerPlayer > 1000 || c.MatchTicks < 0 || c.SettleTimeout < 0 || c.RejoinTimeout < 0:
		return fmt.Errorf("%w: negative or huge match setting", fogauth.ErrConfig)
	}
	return nil
}

// Model returns the fog-authoritative network model for a server. Its
// Metrics cover every room it creates. Its rooms take rejoins (a player
// back after its connection ended starts from an empty view) and up to
// MaxSpectators spectators.
func Model(cfg Config) room.Model {
	cfg = cfg.withDefaults()
	m := &metrics{rooms: map[*fogRoom]struct{}{}}
	return room.Model{
		Name:          room.FogAuthoritative,
		MaxRoomSize:   cfg.MaxRoomSize,
		MaxRooms:      cfg.MaxConcurrentGames,
		TickRate:      cfg.Room.TickRate,
		Channels:      lanes.Channels(),
		Rejoin:        true,
		MaxSpectators: cfg.MaxSpectators,
		New: func(p room.Params) (room.Room, error) {
			r, err := newRoom(cfg, m, p)
			if err != nil {
				return nil, err
			}
			return room.NewDriver(p, r), nil
		},
		Metrics: m.snapshot,
	}
}

func (c Config) seed() uint64 {
	if c.Seed != nil {
		return c.Seed()
	}
	return randomSeed()
}

// randomSeed is a seed from crypto/rand.
func randomSeed() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// metrics are the model's figures, cumulative over its rooms.
type metrics struct {
	ticks, skipped, saturated, rejections atomic.Uint64
	stateBytes, fogSkips, fogRecomputes   atomic.Uint64
	tickNs, costNs                        atomic.Uint64 // sums

	mu    sync.Mutex
	rooms map[*fogRoom]struct{}
}

func (m *metrics) add(r *fogRoom) {
	m.mu.Lock()
	m.rooms[r] = struct{}{}
	m.mu.Unlock()
}

func (m *metrics) remove(r *fogRoom) {
	m.mu.Lock()
	delete(m.rooms, r)
	m.mu.Unlock()
}

func (m *metrics) snapshot() []admin.Metric {
	m.mu.Lock()
	games := len(m.rooms)
	var bytesPerClient, tickP99, costP99 float64
	for r := range m.rooms {
		st := r.published.Load()
		bytesPerClient += st.bytesPerClient
		tickP99 = max(tickP99, st.tickP99.Seconds())
		costP99 = max(costP99, st.costP99.Seconds())
	}
	m.mu.Unlock()
	if games > 0 {
		bytesPerClient /= float64(games)
	}
	c := func(name, help string, v uint64) admin.Metric {
		return admin.Metric{Name: name, Help: help, Counter: true, Value: float64(v)}
	}
	g := func(name, help string, v float64) admin.Metric {
		return admin.Metric{Name: name, Help: help, Value: v}
	}
	return []admin.Metric{
		g("tickwire_fogauth_games", "Fog-authoritative games running.", float64(games)),
		g("tickwire_fogauth_client_bytes_per_second", "State bytes sent per client per second, averaged over the running games (last second).", bytesPerClient),
		c("tickwire_fogauth_state_bytes_total", "StateUpdate bytes sent.", m.stateBytes.Load()),
		c("tickwire_fogauth_budget_saturated_total", "Client-ticks whose deltas exceeded the per-client budget.", m.saturated.Load()),
		c("tickwire_fogauth_ticks_total", "Ticks run.", m.ticks.Load()),
		c("tickwire_fogauth_tick_overruns_total", "Ticks skipped because a tick overran.", m.skipped.Load()),
		c("tickwire_fogauth_rejections_total", "Orders rejected by validation.", m.rejections.Load()),
		c("tickwire_fogauth_fog_skips_total", "Player fog updates skipped: sight sources unchanged.", m.fogSkips.Load()),
		c("tickwire_fogauth_fog_recomputes_total", "Player fog updates computed.", m.fogRecomputes.Load()),
		{Name: "tickwire_fogauth_tick_seconds_total", Help: "Server time spent in ticks (simulation, fog, deltas, serialisation).", Counter: true, Value: float64(m.tickNs.Load()) / 1e9},
		{Name: "tickwire_fogauth_cost_excl_sim_seconds_total", Help: "Server time spent in ticks excluding the simulation.", Counter: true, Value: float64(m.costNs.Load()) / 1e9},
		g("tickwire_fogauth_tick_p99_seconds", "Worst room's 99th percentile server tick time (last 1,024 ticks).", tickP99),
		g("tickwire_fogauth_cost_excl_sim_p99_seconds", "Worst room's 99th percentile tick cost excluding the simulation (last 1,024 ticks).", costP99),
	}
}
