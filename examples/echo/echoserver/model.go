// Package echoserver hosts echo rooms in the tickwire server: the thin
// shell (the Inbox in, the seats' connections out) around the pure core,
// echo.Hub, plugged into the server through the room seam as the "echo"
// network model. Package echo's documentation walks through it.
package echoserver

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// DefaultMaxRoomSize is a room's largest size when Config sets none.
const DefaultMaxRoomSize = 16

// Config configures the model; the zero value is ready to use.
type Config struct {
	// MaxRoomSize bounds a room's players; DefaultMaxRoomSize if 0, at
	// most 255.
	MaxRoomSize int
}

// counters are the model's figures, cumulative over all its rooms (a
// counter never goes back when a room ends).
type counters struct {
	rooms, said, refused, dropped atomic.Uint64
}

// Model is the echo network model, for server.Config.Models.
func Model(cfg Config) room.Model {
	cs := &counters{}
	size := cfg.MaxRoomSize
	if size <= 0 {
		size = DefaultMaxRoomSize
	}
	return room.Model{
		Name:        echo.ModelName,
		MaxRoomSize: min(size, 255),
		Channels:    lanes.Channels(),
		New: func(p room.Params) (room.Room, error) {
			cs.rooms.Add(1)
			return &echoRoom{p: p, cs: cs}, nil
		},
		Metrics: cs.metrics,
	}
}

func (cs *counters) metrics() []admin.Metric {
	c := func(name, help string, v *atomic.Uint64) admin.Metric {
		return admin.Metric{Name: "tickwire_echo_" + name, Help: help, Counter: true, Value: float64(v.Load())}
	}
	return []admin.Metric{
		c("rooms_total", "Echo rooms started.", &cs.rooms),
		c("says_total", "Says echoed to their rooms.", &cs.said),
		c("messages_refused_total", "Client messages that were not a valid Say.", &cs.refused),
		c("seats_dropped_total", "Seats closed because their connection could not take more.", &cs.dropped),
	}
}

// echoRoom is the shell around one echo.Hub: the Inbox in, the seats'
// connections out.
type echoRoom struct {
	p      room.Params
	cs     *counters
	status atomic.Pointer[room.Status]
}

func (r *echoRoom) Status() room.Status {
	if s := r.status.Load(); s != nil {
		return *s
	}
	return room.Status{Phase: "starting"}
}

// Run feeds the hub what the Inbox holds and sends what it returns, until
// every seat is gone or ctx ends.
func (r *echoRoom) Run(ctx context.Context) error {
	players := make([]protocol.PlayerID, len(r.p.Seats))
	for i, s := range r.p.Seats {
		players[i] = s.Player
	}
	hub := echo.NewHub(players)
	defer r.sendResult()
	r.send(hub)
	var batch []room.Inbound
	var said uint64
	for hub.Live() > 0 {
		select {
		case <-ctx.Done():
			return nil
		case <-r.p.Inbox.Ready():
		}
		batch = r.p.Inbox.Take(batch[:0])
		for _, in := range batch {
			if in.Err != nil {
				hub.Leave(in.Seat)
				continue
			}
			if hub.Step(in.Seat, in.Msg.Data) != nil {
				r.cs.refused.Add(1)
			}
		}
		r.send(hub)
		st := hub.Stats()
		r.cs.said.Add(st.Said - said)
		said = st.Said
		r.status.Store(&room.Status{Phase: "playing", Tick: st.Said})
	}
	return nil
}

// sendResult sends the server's certified match result
// (room.Params.Result) to every seat as the match ends: the players that
// left with join.Leave still listen for it; a closed seat refuses it.
func (r *echoRoom) sendResult() {
	if r.p.Result == nil {
		return
	}
	data := r.p.Result(r.Status())
	if data == nil {
		return
	}
	for _, s := range r.p.Seats {
		if s.Conn.Send(lanes.Orders, data) == nil {
			s.Conn.Flush()
		}
	}
}

// send sends what the hub is ready to send and flushes each connection
// used. A seat whose connection refuses a message (its queue is full: it
// stopped reading) is closed with a reason it can read and leaves the
// room; the others go on.
func (r *echoRoom) send(hub *echo.Hub) {
	used, dropped := make([]bool, len(r.p.Seats)), make([]bool, len(r.p.Seats))
	for _, e := range hub.Ready() {
		if dropped[e.To] {
			continue
		}
		err := r.p.Seats[e.To].Conn.Send(lanes.Orders, e.Data)
		switch {
		case err == nil:
			used[e.To] = true
		case errors.Is(err, transport.ErrBackpressure):
			dropped[e.To] = true
			r.cs.dropped.Add(1)
			r.p.CloseSeat(e.To, "echo: too slow: your queue stayed full")
			hub.Leave(e.To)
		}
	}
	hub.Advance()
	for i, s := range r.p.Seats {
		if used[i] {
			s.Conn.Flush()
		}
	}
}
