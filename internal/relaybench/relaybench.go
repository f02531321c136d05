package relaybench

import (
	"errors"
	"fmt"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
)

// Players is the size of the benchmarked match.
const Players = 4

// oneWay is every player's path delay; calibration says so, and the
// submissions arrive exactly that long after their send stamps.
const oneWay = 20 * time.Millisecond

// Game is a 4-player relay.Core in the playing phase with the default
// filter chain, driven by four scripted clients that submit one order per
// tick window, echo every frame's liveness token and answer sync requests.
type Game struct {
	core   *relay.Core
	submit [Players]msg.OrderSubmit
	orders [Players][1]protocol.TimestampedOrder
	sync   [Players]msg.SyncHash
	// frames are the newest frames in the order sent (a client echoes the
	// newest one it has received when it submits).
	frames   [4]frameSeen
	nframes  int
	syncTick uint64
	syncDue  bool
	now      time.Duration
	window   uint64 // next window to submit
}

type frameSeen struct {
	tick   uint64
	token  uint32
	sentAt time.Duration
}

// zeroReader makes the core's liveness tokens reproducible.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// NewGame sets up the match: calibration applied directly (every player
// 40 ms round trip, 2 ms jitter), the commit-reveal seed exchanged, play
// started and the first frame broadcast.
func NewGame() (*Game, error) {
	ids := make([]protocol.PlayerID, Players)
	per := make([]relay.PlayerCalibration, Players)
	for i := range ids {
		ids[i] = protocol.PlayerID(i + 1)
		per[i] = relay.PlayerCalibration{Player: ids[i], Samples: 20, MedianRTT: 2 * oneWay, Jitter: 2 * time.Millisecond,
			EstimatedOneWay: oneWay, OneWayP95: oneWay + time.Millisecond}
	}
	core, err := relay.New(relay.Config{Rand: zeroReader{}}, ids, 0)
	if err != nil {
		return nil, err
	}
	g := &Game{core: core}
	now := time.Duration(0)
	if err := core.ApplyCalibration(now, relay.MatchCalibration{PerPlayer: per, SharedInitialRunAhead: 2, InitialTickDeadline: 60 * time.Millisecond}); err != nil {
		return nil, err
	}
	var contribution [32]byte
	var nonce [16]byte
	for _, id := range ids {
		contribution[0] = byte(id)
		if err := core.Step(now, id, &msg.SeedCommit{Commitment: relay.Commitment(contribution, nonce)}); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		contribution[0] = byte(id)
		if err := core.Step(now, id, &msg.SeedReveal{Contribution: contribution, Nonce: nonce}); err != nil {
			return nil, err
		}
	}
	if core.Phase() != relay.PhasePlaying {
		return nil, fmt.Errorf("relaybench: phase %v after the seed exchange", core.Phase())
	}
	g.now = now
	g.drain()
	for i, id := range ids {
		g.orders[i][0] = protocol.TimestampedOrder{Player: id, Order: protocol.Move{Units: []protocol.EntityID{protocol.EntityID(i)}}}
		g.submit[i].Orders = g.orders[i][:]
		g.submit[i].Size = 32
	}
	// Warm up: a few windows so every pool and buffer has its size.
	for range 4 * 30 {
		if err := g.Tick(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Core is the game's relay core.
func (g *Game) Core() *relay.Core { return g.core }

// errStalled reports a game that stopped producing frames.
var errStalled = errors.New("relaybench: the core fell behind its tick schedule")

// Tick runs one game tick: the four players' submissions for the next
// window arrive (one order each, the newest frame they have received
// echoed, sync hashes when asked), the relay clock moves on by one tick
// interval, which finalises and broadcasts the tick whose deadline passed,
// and the Ready output is drained and Advance called. Time moves forward
// only, by exactly one tick interval per call.
func (g *Game) Tick() error {
	c := g.core
	k := g.window
	g.window++
	end := c.Start() + time.Duration(k+1)*c.TickInterval()
	arrive := end + oneWay
	var ack frameSeen
	for _, f := range g.frames[:g.nframes] {
		if f.sentAt+oneWay <= end {
			ack = f
		}
	}
	for i := range g.submit {
		s := &g.submit[i]
		s.Tick, s.SentUs = k, uint64(end/time.Microsecond)
		s.AckTick, s.Token, s.AckDelayUs = ack.tick, ack.token, uint32((end-ack.sentAt-oneWay)/time.Microsecond)
		s.Orders[0].SubTickTime = uint32(i * 1000)
		if err := c.Step(arrive, protocol.PlayerID(i+1), s); err != nil {
			return err
		}
	}
	if g.syncDue {
		for i := range g.sync {
			g.sync[i] = msg.SyncHash{Tick: g.syncTick, Hash: g.syncTick}
			if err := c.Step(arrive, protocol.PlayerID(i+1), &g.sync[i]); err != nil {
				return err
			}
		}
		g.syncDue = false
	}
	g.now = arrive + c.TickInterval()/2
	c.Tick(g.now)
	g.drain()
	if c.NextTick()+4 < g.window {
		return errStalled
	}
	return nil
}

// drain takes the core's Ready output, keeping the newest frames' tokens,
// and acknowledges it.
func (g *Game) drain() {
	if !g.core.HasReady() {
		return
	}
	for _, e := range g.core.Ready().Messages {
		if f, ok := e.Msg.(*msg.TickFrame); ok {
			if g.nframes == len(g.frames) {
				copy(g.frames[:], g.frames[1:])
				g.nframes--
			}
			g.frames[g.nframes] = frameSeen{tick: f.Tick, token: f.Token, sentAt: g.now}
			g.nframes++
			if f.Flags&msg.FlagSyncRequest != 0 {
				g.syncTick, g.syncDue = f.Tick, true
			}
		}
	}
	g.core.Advance()
}

// Run measures n game ticks and returns the mean cost of one in
// nanoseconds, the figure `tickwire bench relay` reports. It runs on the
// calling goroutine and reads the clock only around the whole run.
func Run(n int) (nsPerTick float64, err error) {
	g, err := NewGame()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	for range n {
		if err := g.Tick(); err != nil {
			return 0, err
		}
	}
	return float64(time.Since(start).Nanoseconds()) / float64(max(n, 1)), nil
}
