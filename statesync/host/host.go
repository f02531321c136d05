package host

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
	"github.com/tickwire/tickwire/transport"
)

// MaxDatagramMessage is the largest message sent whole; larger ones are
// chunked.
const MaxDatagramMessage = 1000

// Config configures the model. The zero value is usable.
type Config struct {
	// Core configures each room's core.
	Core statesync.Config
	// MaxRoomSize bounds a room (default and at most 255, the join
	// exchange's limit).
	MaxRoomSize int
	// OnReport, if set, receives each room's report when it ends.
	OnReport func(Report)
	// Replays, with a directory, records every room's agreed hashes
	// (replay.go).
	Replays replay.Config
}

// Lane is the channel a client sends m on.
func Lane(m msg.Message, size int) transport.ChannelID {
	switch m.(type) {
	case *msg.StateHash, *msg.PartitionData:
		if size <= MaxDatagramMessage {
			return lanes.Control
		}
	}
	return lanes.Orders
}

// Channels are the lanes the model uses: the server's orders and control
// lanes (server/lanes).
func Channels() []transport.ChannelConfig {
	var out []transport.ChannelConfig
	for _, c := range lanes.Channels() {
		if c.ID == lanes.Orders || c.ID == lanes.Control {
			out = append(out, c)
		}
	}
	return out
}

// Model is the state_sync network model.
func Model(cfg Config) room.Model {
	if cfg.MaxRoomSize <= 0 || cfg.MaxRoomSize > 255 {
		cfg.MaxRoomSize = 255
	}
	hz := cfg.Core.TickHz
	if hz <= 0 {
		hz = 20
	}
	totals := &totals{}
	cfg.Replays = cfg.Replays.WithKey()
	return room.Model{
		Name: room.StateSync, MaxRoomSize: cfg.MaxRoomSize, TickRate: hz,
		// A client sends per frame a hash, an input and sometimes a
		// partition, and more while it recovers or provides state.
		MessageRate: 12 * hz, MessageBurst: 40 * hz,
		Channels: Channels(),
		// A new connection takes the seat of a player that left and
		// joins the core late (NEW → SYNCING → ACTIVE).
		LateJoin: true,
		New: func(p room.Params) (room.Room, error) {
			c := cfg.Core
			c.TickHz = hz
			r := newRoom(p, c, cfg.OnReport, totals)
			r.startReplay(&cfg.Replays, p, hz)
			return room.NewDriver(p, r), nil
		},
		Metrics: totals.metrics,
	}
}

// totals are the model's counters over all its rooms, for /metrics.
type totals struct {
	frames, desyncs, recovered, lateJoins, offences atomic.Uint64
}

func (t *totals) metrics() []admin.Metric {
	return []admin.Metric{
		{Name: "tickwire_statesync_frames_total", Help: "Frames broadcast by state-sync rooms.", Counter: true, Value: float64(t.frames.Load())},
		{Name: "tickwire_statesync_desyncs_total", Help: "Clients found disagreeing with the majority hash.", Counter: true, Value: float64(t.desyncs.Load())},
		{Name: "tickwire_statesync_recovered_total", Help: "Desynced clients that agree again.", Counter: true, Value: float64(t.recovered.Load())},
		{Name: "tickwire_statesync_late_joins_total", Help: "Clients that joined late and became ACTIVE.", Counter: true, Value: float64(t.lateJoins.Load())},
		{Name: "tickwire_statesync_offences_total", Help: "Protocol offences (evidence of a hostile client): stranger or bad partitions, bad state data, floods, repeated desyncs.", Counter: true, Value: float64(t.offences.Load())},
	}
}

// ssRoom is one state-sync room's core for the room driver
// (server/room.Driver): it decodes what the seats send, feeds the
// statesync.Server with the server clock, and hands the driver what the
// core produces, encoded and chunked.
type ssRoom struct {
	core    *statesync.Server
	open    []bool
	reasm   []msg.Reassembler
	out     []room.Envelope
	arena   []byte
	report  Report
	onEnd   func(Report)
	totals  *totals
	started time.Duration
	frame   uint32            // the core's frame when the CPU time was last settled
	cpu     time.Duration     // decoding, core and encoding since then
	rec     *replay.Recording // the match's replay, if recorded (replay.go)
	log     *slog.Logger
}

func newRoom(p room.Params, cfg statesync.Config, onEnd func(Report), t *totals) *ssRoom {
	if cfg.Seed == 0 {
		// The core's choice of state sources must be unpredictable to
		// clients.
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Seed = binary.LittleEndian.Uint64(b[:])
	}
	now := p.Clock()
	r := &ssRoom{core: statesync.NewServer(cfg, now), open: make([]bool, len(p.Seats)),
		reasm: make([]msg.Reassembler, len(p.Seats)), onEnd: onEnd, totals: t, started: now}
	r.report = Report{Room: p.Name, Players: len(p.Seats), BytesIn: make([]int, len(p.Seats)), BytesOut: make([]int, len(p.Seats))}
	for i := range p.Seats {
		r.open[i] = true
		_ = r.core.Join(now, seatID(i))
	}
	return r
}

func seatID(i int) uint32 { return uint32(i + 1) }

// Handle implements room.Core: one inbound message or a seat's change.
func (r *ssRoom) Handle(now time.Duration, in *room.Inbound) {
	if in.Seat >= len(r.open) {
		return
	}
	start := time.Now()
	defer func() { r.cpu += time.Since(start) }()
	id := seatID(in.Seat)
	switch {
	case in.Err != nil:
		if r.open[in.Seat] {
			r.open[in.Seat] = false
			r.core.Leave(in.At, id)
		}
		return
	case in.Joined != nil: // a new player in the seat of one that left
		r.open[in.Seat] = true
		r.reasm[in.Seat] = msg.Reassembler{}
		r.core.Leave(in.At, id)
		_ = r.core.Join(in.At, id)
		return
	}
	r.report.BytesIn[in.Seat] += len(in.Msg.Data)
	m, err := r.reasm[in.Seat].Parse(in.Msg.Data)
	if err != nil {
		r.report.Malformed++
		return
	}
	switch m := m.(type) {
	case nil: // a chunk of a larger message
	case *msg.Hello:
		if r.core.Rejoin(in.At, id) != nil {
			r.report.Refused++
		}
	case *msg.Bye:
		r.core.Leave(in.At, id)
	default:
		err := r.core.Step(in.At, id, m)
		if errors.Is(err, statesync.ErrUnknownClient) {
			// The core dropped a client whose connection lives (silent
			// through a network split): it joins again, late.
			err = r.core.Join(in.At, id)
		}
		if err != nil {
			r.report.Refused++
		}
	}
}

// Tick implements room.Core.
func (r *ssRoom) Tick(now time.Duration) {
	start := time.Now()
	r.core.Tick(now)
	r.cpu += time.Since(start)
	r.settle()
}

// HasReady implements room.Core.
func (r *ssRoom) HasReady() bool { return r.core.HasReady() }

// Ready implements room.Core: the core's messages encoded, chunked, for
// their seats, and its events recorded.
func (r *ssRoom) Ready() room.Ready {
	start := time.Now()
	rd := r.core.Ready()
	for _, env := range rd.Messages {
		b, err := msg.Append(r.arena, env.Msg)
		if err != nil {
			continue
		}
		pieces, err := msg.Split(b[len(r.arena):], MaxDatagramMessage)
		r.arena = b
		if err != nil {
			continue
		}
		if env.Broadcast {
			for i := range r.open {
				r.emit(i, pieces)
			}
		} else if i := int(env.To) - 1; i >= 0 && i < len(r.open) {
			r.emit(i, pieces)
		}
	}
	for _, e := range rd.Events {
		r.record(e)
	}
	r.core.Advance(rd)
	r.cpu += time.Since(start)
	return room.Ready{Messages: r.out}
}

// emit hands seat i's pieces of a message to the driver.
func (r *ssRoom) emit(i int, pieces [][]byte) {
	if !r.open[i] {
		return
	}
	for _, p := range pieces {
		r.out = append(r.out, room.Envelope{Seat: i, Lane: lanes.Orders, Data: p})
		r.report.BytesOut[i] += len(p)
	}
}

// Advance implements room.Core (the core's Ready was advanced in Ready:
// its messages are encoded).
func (r *ssRoom) Advance() {
	clear(r.out)
	r.out, r.arena = r.out[:0], r.arena[:0]
	r.settle()
}

// settle adds the CPU time since the last settle to the frame it served:
// a new broadcast frame, or the one being collected.
func (r *ssRoom) settle() {
	if r.core.HasReady() {
		return
	}
	frame := r.core.Frame()
	switch {
	case frame != r.frame:
		r.report.FrameCPU = keep(r.report.FrameCPU, r.cpu)
		r.totals.frames.Add(uint64(frame - r.frame))
		r.frame = frame
	case len(r.report.FrameCPU) > 0:
		r.report.FrameCPU[len(r.report.FrameCPU)-1] += r.cpu // messages of the frame being collected
	}
	r.cpu = 0
}

// Next implements room.Core.
func (r *ssRoom) Next() (time.Duration, bool) { return r.core.NextDeadline(), true }

// Done implements room.Core: every seat is gone.
func (r *ssRoom) Done() bool { return !slices.Contains(r.open, true) }

// Status implements room.Core.
func (r *ssRoom) Status(time.Duration) room.Status {
	st := room.Status{Phase: "playing", Tick: uint64(r.core.Frame())}
	if _, h, ok := r.core.Agreed(); ok {
		st.FinalHash = fmt.Sprintf("%08x", h) // the latest majority hash
	}
	return st
}

// End implements room.Core: the room's report.
func (r *ssRoom) End(now time.Duration) {
	r.report.Stats = r.core.Stats()
	r.report.Duration = now - r.started
	if r.onEnd != nil {
		r.onEnd(r.report)
	}
	r.finishReplay()
}
