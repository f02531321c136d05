package lockstepserver

import (
	"fmt"
	"log/slog"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
)

// Config configures the lockstep rooms of a server. The zero value is
// the relay package's defaults, rooms of up to relay.MaxPlayers.
type Config struct {
	// Relay configures each room's relay.Core; its TickRate is the one
	// reported to joining clients (0: the server's).
	Relay relay.Config
	// MaxRoomSize bounds the players of a room; 0 means relay.MaxPlayers,
	// which is also the most it may be.
	MaxRoomSize int
	// DesyncDir, if set, receives each room's desync reports,
	// desync_report_{seed}_{tick}.json, written atomically when the
	// relay's desync walk ends (the report also goes to every client and
	// to the dashboard).
	DesyncDir string
	// MatchTypeDebugLevels sets the desync debug level (Relay.DebugLevel)
	// of the rooms of a match type.
	MatchTypeDebugLevels map[string]uint8
	// OnEvent, if set, receives every event of every room (for logs,
	// replays, audit trails). It is called from the room's goroutine and
	// must not block for long.
	OnEvent func(room string, ev relay.Event)
	// Replays, with a directory, records every match (replay.go).
	Replays Replays
}

// Check reports the first bad setting.
func (c Config) Check() error {
	if c.MaxRoomSize > relay.MaxPlayers {
		return fmt.Errorf("lockstepserver: MaxRoomSize %d is beyond the relay's %d players", c.MaxRoomSize, relay.MaxPlayers)
	}
	return nil
}

// Lockstep is the lockstep network model of one server: its rooms share
// its figures.
type Lockstep struct {
	cfg Config
	c   counters
}

// New returns the lockstep model with cfg.
func New(cfg Config) *Lockstep {
	if cfg.MaxRoomSize <= 0 || cfg.MaxRoomSize > relay.MaxPlayers {
		cfg.MaxRoomSize = relay.MaxPlayers
	}
	cfg.Replays.Config = cfg.Replays.WithKey()
	l := &Lockstep{cfg: cfg}
	l.c.lateness = metrics.NewBounded(latenessBounds...)
	l.c.malformed = metrics.NewByKind(malformedKinds)
	l.c.rejected = metrics.NewByKind(rejectedKinds)
	return l
}

// Model returns the lockstep network model with cfg (New(cfg).Model()).
func Model(cfg Config) room.Model { return New(cfg).Model() }

// Model returns the room.Model a server hosts.
func (l *Lockstep) Model() room.Model {
	return room.Model{
		Name:        room.Lockstep,
		MaxRoomSize: l.cfg.MaxRoomSize,
		TickRate:    l.cfg.Relay.TickRate,
		Channels:    lanes.Channels(),
		New: func(p room.Params) (room.Room, error) {
			r, err := l.newRoom(p)
			if err != nil {
				return nil, err
			}
			return room.NewDriver(p, r), nil
		},
		Metrics: l.metrics,
	}
}

func (l *Lockstep) newRoom(p room.Params) (*lockstepRoom, error) {
	cfg := l.cfg.Relay
	cfg.TickRate = p.TickRate
	if level, ok := l.cfg.MatchTypeDebugLevels[p.MatchType]; ok {
		cfg.DebugLevel = level
	}
	r := &lockstepRoom{l: l, name: p.Name, size: len(p.Seats), log: p.Logger, clock: p.Clock, counters: p.Counters}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.counters == nil {
		r.counters = new(room.Counters)
	}
	ids := make([]protocol.PlayerID, len(p.Seats))
	for i, st := range p.Seats {
		ids[i] = st.Player
		r.members = append(r.members, member{id: st.Player})
	}
	core, err := relay.New(cfg, ids, p.Clock())
	if err != nil {
		return nil, err
	}
	r.core = core
	r.notices, r.late = make([]msg.LateNotice, r.size), make([]bool, r.size)
	r.rep = newReport(r.size)
	r.replay = newMatchReplay(&l.cfg.Replays, p, profileOf(cfg), r.log)
	return r, nil
}
