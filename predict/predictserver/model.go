// Package predictserver hosts prediction rooms in the tickwire server: it
// is the thin shell (inbox, timer, sockets) around predict.Server, plugged
// into server through the room seam as the "prediction" network
// model.
package predictserver

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/lanes"
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
}

// counters are the model's figures, cumulative over all its rooms.
type counters struct {
	rooms, ticks, slipped, applied, late, dropped, clamped, rejected atomic.Uint64
	refused, events, full, delta, snapBytes, worldBytes, tickNanos   atomic.Uint64
}

// Model returns the prediction network model.
func Model(cfg Config) room.Model {
	cs := &counters{}
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
			return &predictionRoom{p: p, cfg: sc, game: cfg.NewGame(p.Name, p.TickRate), cs: cs}, nil
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

// predictionRoom runs one room: the inbox and the tick timer drive a
// predict.Server; its messages go out on the seats' connections.
type predictionRoom struct {
	p      room.Params
	cfg    predict.ServerConfig
	game   predict.Game
	cs     *counters
	status atomic.Pointer[room.Status]
}

func (r *predictionRoom) Status() room.Status {
	if s := r.status.Load(); s != nil {
		return *s
	}
	return room.Status{Phase: "starting"}
}

func (r *predictionRoom) Run(ctx context.Context) error {
	r.cs.rooms.Add(1)
	now := r.p.Clock()
	r.cfg.Epoch = now
	srv := predict.NewServer(r.cfg, r.game)
	seatOf := make(map[predict.PlayerID]int, len(r.p.Seats))
	live := len(r.p.Seats)
	for i, s := range r.p.Seats {
		pid := predict.PlayerID(s.Player)
		seatOf[pid] = i
		if err := srv.Join(now, pid); err != nil {
			return fmt.Errorf("predictserver: seat %d: %w", i, err)
		}
	}
	var prev predict.ServerStats
	var batch []room.Inbound
	timer := time.NewTimer(0)
	defer timer.Stop()
	for live > 0 {
		select {
		case <-ctx.Done():
			return nil
		case <-r.p.Inbox.Ready():
		case <-timer.C:
		}
		start := time.Now()
		batch = r.p.Inbox.Take(batch[:0])
		for _, in := range batch {
			pid := predict.PlayerID(r.p.Seats[in.Seat].Player)
			if in.Err != nil {
				srv.Leave(in.At, pid)
				live--
				continue
			}
			if err := srv.Receive(in.At, pid, in.Msg.Data); err != nil {
				r.cs.refused.Add(1)
			}
		}
		srv.Tick(r.p.Clock())
		r.flush(srv, seatOf)
		r.cs.add(srv.Stats(), &prev)
		r.cs.tickNanos.Add(uint64(time.Since(start)))
		r.status.Store(&room.Status{Phase: "playing", Tick: srv.ServerTick()})
		timer.Reset(max(srv.NextDeadline()-r.p.Clock(), 0))
	}
	return nil
}

// flush sends the server's messages and flushes every connection used.
func (r *predictionRoom) flush(srv *predict.Server, seatOf map[predict.PlayerID]int) {
	var used [256]bool
	for _, m := range srv.Ready().Messages {
		i, ok := seatOf[m.To]
		if !ok {
			continue
		}
		// A full queue drops the message: snapshots are superseded, and a
		// client that cannot keep up with reliable traffic is closed by
		// its transport.
		_ = r.p.Seats[i].Conn.Send(lanes.Channel(m.Lane), m.Data)
		used[i] = true
	}
	srv.Advance()
	for i, s := range r.p.Seats {
		if used[i] {
			s.Conn.Flush()
		}
	}
}
