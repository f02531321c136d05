// Package predictserver hosts prediction rooms in the tickwire server: it
// is the thin adapter around predict.Server that the room driver
// (server/room.Driver: inbox, timer, sockets, backpressure) runs, plugged
// into the server through the room seam as the "prediction" network
// model.
package predictserver

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/lanes"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/room"
)

// Config configures the model. NewGame is required.
type Config struct {
	// Server is each room's loop configuration; its TickRate is the one
	// reported to joining clients (0: the server's).
	Server predict.ServerConfig
	// MaxRoomSize bounds a room's players; 32 if 0.
	MaxRoomSize int
	// NewGame returns a fresh game for a room at the room's tick rate (the
	// rules every client must share).
	NewGame func(room string, tickRate int) predict.Game
	// Replays, with a directory, records every match (replay.go).
	Replays replay.Config
}

// counters are the model's figures, cumulative over all its rooms.
type counters struct {
	rooms, ticks, slipped, applied, late, dropped, clamped, rejected atomic.Uint64
	refused, events, full, delta, snapBytes, worldBytes, tickNanos   atomic.Uint64
}

// Model returns the prediction network model.
func Model(cfg Config) room.Model {
	cs := &counters{}
	cfg.Replays = cfg.Replays.WithKey()
	maxRoom := cfg.MaxRoomSize
	if maxRoom <= 0 {
		maxRoom = 32
	}
	return room.Model{
		Name:        room.Prediction,
		MaxRoomSize: min(maxRoom, 255),
		TickRate:    cfg.Server.TickRate,
		Channels:    lanes.Channels(),
		New: func(p room.Params) (room.Room, error) {
			if cfg.NewGame == nil {
				return nil, fmt.Errorf("predictserver: no game")
			}
			sc := cfg.Server
			sc.TickRate = p.TickRate
			sc.MaxPlayers = max(sc.MaxPlayers, len(p.Seats))
			game, rec := record(&cfg.Replays, p, cfg.NewGame(p.Name, p.TickRate))
			core, err := newRoom(p, sc, game, cs)
			if core != nil {
				core.game, core.rec, core.log = game, rec, p.Logger
			} else {
				finishReplay(rec, game, p.Logger)
			}
			if err != nil {
				return nil, err
			}
			return room.NewDriver(p, core), nil
		},
		Metrics: cs.metrics,
	}
}

func (cs *counters) add(d predict.ServerStats, prev *predict.ServerStats) {
	cs.ticks.Add(d.Ticks - prev.Ticks)
	cs.slipped.Add(d.Slipped - prev.Slipped)
	cs.applied.Add(d.InputsApplied - prev.InputsApplied)
	cs.late.Add(d.InputsLate - prev.InputsLate)
	cs.dropped.Add(d.InputsDropped - prev.InputsDropped)
	cs.clamped.Add(d.InputsClamped - prev.InputsClamped)
	cs.rejected.Add(d.InputsRejected - prev.InputsRejected)
	cs.events.Add(d.Events - prev.Events)
	cs.full.Add(d.FullSnapshots - prev.FullSnapshots)
	cs.delta.Add(d.DeltaSnapshots - prev.DeltaSnapshots)
	cs.snapBytes.Add(d.SnapshotBytes - prev.SnapshotBytes)
	cs.worldBytes.Add(d.SnapshotBytesWorld - prev.SnapshotBytesWorld)
	*prev = d
}

func (cs *counters) metrics() []admin.Metric {
	c := func(name, help string, v *atomic.Uint64) admin.Metric {
		return admin.Metric{Name: "tickwire_prediction_" + name, Help: help, Counter: true, Value: float64(v.Load())}
	}
	snaps := func(kind string, v *atomic.Uint64) admin.Metric {
		m := c("snapshots_total", "Snapshots sent, by kind.", v)
		m.Labels = [][2]string{{"kind", kind}}
		return m
	}
	inputs := func(outcome string, v *atomic.Uint64) admin.Metric {
		m := c("inputs_total", "Client inputs, by outcome (applied counts late ones too).", v)
		m.Labels = [][2]string{{"outcome", outcome}}
		return m
	}
	return []admin.Metric{
		c("rooms_total", "Prediction rooms started.", &cs.rooms),
		c("ticks_total", "Authoritative ticks simulated.", &cs.ticks),
		c("ticks_slipped_total", "Ticks skipped because a room fell behind its schedule.", &cs.slipped),
		inputs("applied", &cs.applied), inputs("late", &cs.late), inputs("dropped", &cs.dropped),
		inputs("clamped", &cs.clamped), inputs("rejected", &cs.rejected),
		c("messages_refused_total", "Client messages that failed to decode or validate.", &cs.refused),
		c("events_total", "Game events published.", &cs.events),
		snaps("full", &cs.full), snaps("delta", &cs.delta),
		c("snapshot_bytes_total", "Bytes of snapshots sent.", &cs.snapBytes),
		c("world_snapshot_bytes_total", "Bytes the snapshots sent would have taken without interest management (counted when it is on).", &cs.worldBytes),
		{Name: "tickwire_prediction_tick_seconds_total", Help: "Time spent running ticks and encoding their messages.",
			Counter: true, Value: float64(cs.tickNanos.Load()) / 1e9},
	}
}

// predictionRoom is a prediction room's core for the room driver: a
// predict.Server whose players are the room's seats.
type predictionRoom struct {
	srv    *predict.Server
	cs     *counters
	seatOf map[predict.PlayerID]int
	player []predict.PlayerID // by seat
	live   int
	prev   predict.ServerStats
	out    []room.Envelope
	game   predict.Game
	rec    *replay.Recording // the match's replay, if recorded (replay.go)
	log    *slog.Logger
	shown  corrections // what the dashboard showed of the clients' corrections
}

func newRoom(p room.Params, cfg predict.ServerConfig, game predict.Game, cs *counters) (*predictionRoom, error) {
	now := p.Clock()
	cfg.Epoch = now
	r := &predictionRoom{srv: predict.NewServer(cfg, game), cs: cs, seatOf: make(map[predict.PlayerID]int, len(p.Seats)), live: len(p.Seats)}
	for i, s := range p.Seats {
		pid := predict.PlayerID(s.Player)
		r.seatOf[pid] = i
		r.player = append(r.player, pid)
		if err := r.srv.Join(now, pid); err != nil {
			return nil, fmt.Errorf("predictserver: seat %d: %w", i, err)
		}
	}
	cs.rooms.Add(1)
	return r, nil
}

// Handle implements room.Core.
func (r *predictionRoom) Handle(_ time.Duration, in *room.Inbound) {
	if in.Seat >= len(r.player) {
		return
	}
	start := time.Now()
	defer r.cs.addTime(start)
	pid := r.player[in.Seat]
	switch {
	case in.Err != nil:
		r.srv.Leave(in.At, pid)
		r.live--
	case in.Joined == nil:
		if err := r.srv.Receive(in.At, pid, in.Msg.Data); err != nil {
			r.cs.refused.Add(1)
		}
	}
}

// Tick implements room.Core.
func (r *predictionRoom) Tick(now time.Duration) {
	start := time.Now()
	r.srv.Tick(now)
	r.cs.add(r.srv.Stats(), &r.prev)
	r.cs.addTime(start)
}

// HasReady implements room.Core.
func (r *predictionRoom) HasReady() bool { return r.srv.HasReady() }

// Ready implements room.Core: the server's messages, addressed to seats.
func (r *predictionRoom) Ready() room.Ready {
	for _, m := range r.srv.Ready().Messages {
		if i, ok := r.seatOf[m.To]; ok {
			r.out = append(r.out, room.Envelope{Seat: i, Lane: lanes.Channel(m.Lane), Data: m.Data})
		}
	}
	return room.Ready{Messages: r.out}
}

// Advance implements room.Core.
func (r *predictionRoom) Advance() {
	clear(r.out)
	r.out = r.out[:0]
	r.srv.Advance()
}

// Next implements room.Core.
func (r *predictionRoom) Next() (time.Duration, bool) { return r.srv.NextDeadline(), true }

// Done implements room.Core: every seat is gone.
func (r *predictionRoom) Done() bool { return r.live <= 0 }

// Status implements room.Core.
func (r *predictionRoom) Status(time.Duration) room.Status {
	st := room.Status{Phase: "playing", Tick: r.srv.ServerTick()}
	if r.game != nil {
		st.FinalHash = fmt.Sprintf("%016x", r.game.StateHash())
	}
	return st
}

// End implements room.Core.
func (r *predictionRoom) End(time.Duration) { finishReplay(r.rec, r.game, r.log) }

func (cs *counters) addTime(start time.Time) { cs.tickNanos.Add(uint64(time.Since(start))) }
