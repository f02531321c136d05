// Package echoserver hosts echo rooms in the tickwire server: the pure
// core, echo.Hub, behind a small adapter (room.Core) that the shared room
// driver runs, plugged into the server through the room seam as the
// "echo" network model. Package echo's documentation walks through it.
package echoserver

import (
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
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
	rooms, said, refused atomic.Uint64
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
			return room.NewDriver(p, newCore(p, cs)), nil
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
	}
}

// core adapts one echo.Hub to the room driver (room.Core): the driver
// reads the Inbox, sends what Ready returns on the seats' connections,
// flushes, and drops a seat that cannot keep up; the adapter only speaks
// in seats.
type core struct {
	hub  *echo.Hub
	cs   *counters
	said uint64
	out  []room.Envelope
}

func newCore(p room.Params, cs *counters) *core {
	players := make([]protocol.PlayerID, len(p.Seats))
	for i, s := range p.Seats {
		players[i] = s.Player
	}
	return &core{hub: echo.NewHub(players), cs: cs}
}

// Handle steps the hub with a seat's message, or takes a seat that ended
// out of the room. A connection joining mid-room is ignored: an echo
// room is whoever was seated when it started.
func (c *core) Handle(_ time.Duration, in *room.Inbound) {
	switch {
	case in.Joined != nil:
	case in.Err != nil:
		c.hub.Leave(in.Seat)
	case c.hub.Step(in.Seat, in.Msg.Data) != nil:
		c.cs.refused.Add(1)
	}
}

func (c *core) HasReady() bool { return len(c.hub.Ready()) > 0 }

func (c *core) Ready() room.Ready {
	c.out = c.out[:0]
	for _, e := range c.hub.Ready() {
		c.out = append(c.out, room.Envelope{Seat: e.To, Lane: lanes.Orders, Data: e.Data})
	}
	return room.Ready{Messages: c.out}
}

func (c *core) Advance() {
	c.hub.Advance()
	said := c.hub.Stats().Said
	c.cs.said.Add(said - c.said)
	c.said = said
}

// The echo room has no clock: only a message makes it do something.
func (c *core) Tick(time.Duration)          {}
func (c *core) Next() (time.Duration, bool) { return 0, false }
func (c *core) Done() bool                  { return c.hub.Live() == 0 }
func (c *core) End(time.Duration)           {}
func (c *core) Status(time.Duration) room.Status {
	return room.Status{Phase: "playing", Tick: c.hub.Stats().Said}
}
