package host

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"slices"
	"sync/atomic"
	"time"

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
			return newRoom(p, c, cfg.OnReport, totals), nil
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

// ssRoom is one state-sync room: the shell around a statesync.Server.
type ssRoom struct {
	p       room.Params
	core    *statesync.Server
	open    []bool
	reasm   []msg.Reassembler
	outbox  []Outbox
	taken   []room.Inbound
	report  Report
	onEnd   func(Report)
	totals  *totals
	frame   atomic.Uint64
	started time.Duration
	flushed []*transport.Conn
	cpu     time.Duration // decoding, core and encoding of this turn
	group   transport.FlushGroup
}

func newRoom(p room.Params, cfg statesync.Config, onEnd func(Report), t *totals) *ssRoom {
	if cfg.Seed == 0 {
		// The core's choice of state sources must be unpredictable to
		// clients.
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Seed = binary.LittleEndian.Uint64(b[:])
	}
	r := &ssRoom{p: p, core: statesync.NewServer(cfg, p.Clock()), open: make([]bool, len(p.Seats)),
		reasm: make([]msg.Reassembler, len(p.Seats)), outbox: make([]Outbox, len(p.Seats)), onEnd: onEnd, totals: t}
	r.report = Report{Room: p.Name, Players: len(p.Seats), BytesIn: make([]int, len(p.Seats)), BytesOut: make([]int, len(p.Seats))}
	return r
}

func (r *ssRoom) Status() room.Status {
	return room.Status{Phase: "playing", Tick: r.frame.Load()}
}

// Run drives the room until every seat is gone or ctx ends.
func (r *ssRoom) Run(ctx context.Context) error {
	now := r.p.Clock()
	r.started = now
	for i := range r.p.Seats {
		r.open[i] = true
		_ = r.core.Join(now, seatID(i))
	}
	r.output()
	timer := time.NewTimer(0)
	defer timer.Stop()
	defer r.end()
	for {
		select {
		case <-r.p.Inbox.Ready():
		case <-timer.C:
		case <-ctx.Done():
			return nil
		}
		r.taken = r.p.Inbox.Take(r.taken[:0])
		start := time.Now()
		for i := range r.taken {
			r.handle(&r.taken[i])
		}
		clear(r.taken)
		before := r.core.Frame()
		r.core.Tick(r.p.Clock())
		r.cpu = time.Since(start)
		r.output()
		cpu := r.cpu
		if r.core.Frame() != before {
			r.report.FrameCPU = keep(r.report.FrameCPU, cpu)
			r.frame.Store(uint64(r.core.Frame()))
			r.totals.frames.Add(uint64(r.core.Frame() - before))
		} else if n := len(r.report.FrameCPU); n > 0 {
			r.report.FrameCPU[n-1] += cpu // messages of the frame being collected
		}
		if !slices.Contains(r.open, true) {
			return nil
		}
		next := r.core.NextDeadline() - r.p.Clock()
		if slices.ContainsFunc(r.outbox, func(o Outbox) bool { return o.Waiting() }) {
			next = min(next, 5*time.Millisecond) // retry what the lanes refused
		}
		timer.Reset(max(next, 0))
	}
}

func seatID(i int) uint32 { return uint32(i + 1) }

// handle applies one inbound message or a seat's end.
func (r *ssRoom) handle(in *room.Inbound) {
	id := seatID(in.Seat)
	switch {
	case in.Err != nil:
		if r.open[in.Seat] {
			r.open[in.Seat] = false
			r.core.Leave(in.At, id)
		}
		return
	case in.Joined != nil: // a new player in the seat of one that left
		if in.Seat >= len(r.p.Seats) {
			return
		}
		r.p.Seats[in.Seat].Conn = in.Joined.Conn
		r.open[in.Seat] = true
		r.reasm[in.Seat], r.outbox[in.Seat] = msg.Reassembler{}, Outbox{}
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

// output sends what the core produced and records its events.
func (r *ssRoom) output() {
	r.drain()
	for r.core.HasReady() {
		rd := r.core.Ready()
		for _, env := range rd.Messages {
			start := time.Now()
			b, err := msg.Append(nil, env.Msg)
			if err != nil {
				continue
			}
			pieces, err := msg.Split(b, MaxDatagramMessage)
			r.cpu += time.Since(start)
			if err != nil {
				continue
			}
			if env.Broadcast {
				for i := range r.p.Seats {
					r.send(i, pieces)
				}
			} else if i := int(env.To) - 1; i >= 0 && i < len(r.p.Seats) {
				r.send(i, pieces)
			}
		}
		for _, e := range rd.Events {
			r.record(e)
		}
		r.core.Advance(rd)
	}
	if len(r.flushed) > 0 {
		r.group.Flush(r.flushed...)
		r.flushed = r.flushed[:0]
	}
}

func (r *ssRoom) send(i int, pieces [][]byte) {
	if !r.open[i] {
		return
	}
	conn := r.p.Seats[i].Conn
	n, err := r.outbox[i].Send(conn, lanes.Orders, pieces)
	r.report.BytesOut[i] += n
	if err != nil {
		r.closeSeat(i, err)
		return
	}
	if !slices.Contains(r.flushed, conn) {
		r.flushed = append(r.flushed, conn)
	}
}

// drain retries what the seats' lanes refused before.
func (r *ssRoom) drain() {
	for i := range r.p.Seats {
		if !r.open[i] || !r.outbox[i].Waiting() {
			continue
		}
		conn := r.p.Seats[i].Conn
		n, err := r.outbox[i].Drain(conn, lanes.Orders)
		r.report.BytesOut[i] += n
		if err != nil {
			r.closeSeat(i, err)
			continue
		}
		if n > 0 && !slices.Contains(r.flushed, conn) {
			r.flushed = append(r.flushed, conn)
		}
	}
}

// closeSeat gives up on a seat whose connection cannot take its messages.
func (r *ssRoom) closeSeat(i int, err error) {
	r.open[i] = false
	r.core.Leave(r.p.Clock(), seatID(i))
	r.p.CloseSeat(i, err.Error())
}

func (r *ssRoom) end() {
	r.report.Stats = r.core.Stats()
	r.report.Duration = r.p.Clock() - r.started
	if r.onEnd != nil {
		r.onEnd(r.report)
	}
}
