package lockstepbot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tickwire/tickwire/internal/botpool"
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/metrics"
)

// Defaults of Config.
const (
	DefaultStartTimeout = 2 * time.Minute
	DefaultStallAfter   = 15 * time.Second
	DefaultProgressGap  = 250 * time.Millisecond
)

// Errors recorded in a PlayerReport.
var (
	// ErrStalled: the client confirmed no tick for Config.StallAfter.
	ErrStalled = errors.New("lockstepbot: no tick confirmed in time")
	// ErrNoStart: the match did not start within Config.StartTimeout.
	ErrNoStart = errors.New("lockstepbot: the match did not start in time")
)

// Config configures Run. Players, Ticks and Join are required.
type Config struct {
	// Players is the number of bots in this process.
	Players int
	// RoomSize is the number of players of a match (the scenario is
	// built for it); 0 means Players. Bots may fill several rooms: Join
	// decides which bot goes where.
	RoomSize int
	// Ticks is how many ticks each bot plays.
	Ticks uint64
	// Join connects and joins one bot.
	Join JoinFunc
	// Light skips the simulation: one Move order per tick, constant hash.
	Light bool
	// StartTimeout bounds the wait from joining to the agreed game seed
	// (the room filling up and calibrating); 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// StallAfter gives up on a client that confirms no tick for this
	// long; 0 means DefaultStallAfter.
	StallAfter time.Duration
	// OnProgress, if set, receives a summary every ProgressEvery while
	// the bots play, from a goroutine of its own.
	OnProgress func(Progress)
	// ProgressEvery is the progress period; 0 means DefaultProgressGap.
	ProgressEvery time.Duration
	// OnTick, if set, is called by bot i's goroutine after it applied
	// tick, with the time it did.
	OnTick func(i int, tick uint64, at time.Time)
	// Rejoin makes the bots vanish and come back; the zero value drops
	// nobody.
	Rejoin RejoinConfig
	// Observer: Join seats observers (lockstep.JoinObserver), which play
	// no orders; their final hash is the one after tick Ticks-1.
	Observer bool
	// MaxJoining bounds the bots joining at the same time (a load
	// generator of thousands of clients staggers its handshakes); 0 means
	// no bound.
	MaxJoining int
	// Desync configures desync debugging and drills.
	Desync DesyncConfig
}

// Progress is a live summary across the bots of this process.
type Progress struct {
	Tick       uint64        // lowest tick applied by any bot
	Ticks      uint64        // ticks to play
	LateOrders int           // summed over the bots
	RTT        time.Duration // highest smoothed RTT
	Desyncs    int           // highest count reported to any bot
	Playing    int           // bots whose match has started
}

// Run plays the bots' match and returns the summary. It returns an error
// only for a bad Config or a cancelled ctx; a bot that fails records its
// error in its PlayerReport and the report is then not in sync.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Players < 1 || cfg.Ticks < 1 || cfg.Join == nil {
		return Report{}, fmt.Errorf("lockstepbot: need players, ticks and a join function")
	}
	if cfg.RoomSize == 0 {
		cfg.RoomSize = cfg.Players
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = DefaultStallAfter
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressGap
	}
	bots := make([]*runner, cfg.Players)
	var joining chan struct{}
	if cfg.MaxJoining > 0 {
		joining = make(chan struct{}, cfg.MaxJoining)
	}
	var wg sync.WaitGroup
	for i := range bots {
		bots[i] = &runner{cfg: &cfg, index: i, joining: joining}
		wg.Go(func() { bots[i].run(ctx) })
	}
	if cfg.OnProgress != nil {
		stop := make(chan struct{})
		var pwg sync.WaitGroup
		pwg.Go(func() { reportProgress(&cfg, bots, stop) })
		defer pwg.Wait()
		defer close(stop)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	r := Report{Players: make([]PlayerReport, len(bots))}
	for i, b := range bots {
		r.Players[i] = b.report
		if r.NetworkModel == "" {
			r.NetworkModel = b.model
		}
	}
	slices.SortStableFunc(r.Players, func(a, b PlayerReport) int { return a.ID - b.ID })
	r.AllInSync = inSync(r.Players, cfg.Ticks)
	return r, writeReports(cfg.Desync.ReportDir, bots)
}

func reportProgress(cfg *Config, bots []*runner, stop <-chan struct{}) {
	t := time.NewTicker(cfg.ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			cfg.OnProgress(summarize(cfg, bots))
			return
		case <-t.C:
			cfg.OnProgress(summarize(cfg, bots))
		}
	}
}

func summarize(cfg *Config, bots []*runner) Progress {
	p := Progress{Ticks: cfg.Ticks, Tick: cfg.Ticks}
	for _, b := range bots {
		b.mu.Lock()
		d, playing := b.live, b.playing
		b.mu.Unlock()
		if playing {
			p.Playing++
		}
		p.Tick = min(p.Tick, d.Tick)
		p.LateOrders += d.LateOrders
		p.RTT = max(p.RTT, d.RTT)
		p.Desyncs = max(p.Desyncs, d.Desyncs)
	}
	if p.Playing < len(bots) {
		p.Tick = 0
	}
	return p
}

// runner is one bot.
type runner struct {
	cfg     *Config
	index   int
	joining chan struct{} // a semaphore of Config.MaxJoining, or nil
	report  PlayerReport
	model   string // the network model the server asserted at the join
	desync  []byte // the desync report the relay sent, if any

	mu      sync.Mutex // guards live and playing for progress reports
	live    lockstep.Diagnostics
	playing bool
}

func (r *runner) run(ctx context.Context) {
	if r.joining != nil {
		select {
		case r.joining <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
	c, err := r.cfg.Join(ctx, r.index)
	if r.joining != nil {
		<-r.joining
	}
	if err != nil {
		r.report.Error, r.report.JoinErr = fmt.Sprintf("join: %v", err), err
		return
	}
	defer c.Close()
	r.model = c.NetworkModel()
	if err := r.play(ctx, c); err != nil {
		r.report.Error = err.Error()
		return
	}
	r.report.Certificate = botpool.Leave(ctx, c.Leave)
}

// play waits for the match to start, then applies ticks until done.
func (r *runner) play(ctx context.Context, c Client) error {
	// One watchdog per bot: it cancels the bot's context with the cause
	// when the match does not start, or stalls, in time.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(r.cfg.StartTimeout, func() { cancel(ErrNoStart) })
	defer watchdog.Stop()
	seed, err := c.AwaitSeed(ctx)
	if err != nil {
		return cause(ctx, err)
	}
	watchdog.Stop()
	stallAfter := r.cfg.StallAfter
	if r.cfg.Rejoin.enabled() {
		stallAfter += r.cfg.Rejoin.After
	}
	stall := newStallWatch(stallAfter, func() { cancel(ErrStalled) })
	defer stall.stop()

	r.report.ID = int(c.PlayerID())
	r.report.Observer = r.cfg.Observer
	sim, input, game, err := r.newSim(c, seed)
	if err != nil {
		return err
	}
	defer r.endDesync(ctx, c, game, sim)
	if r.cfg.Observer {
		input = nil
	}
	r.setLive(c.Diagnostics(), true)

	var (
		rtts, gaps metrics.Histogram // seconds
		first      lockstep.Diagnostics
		firstAt    time.Time
		lastAt     time.Time
		finalHash  uint64
	)
	loop := lockstep.GameLoop{Sim: sim, Net: c, Input: input, OnTick: func(tick, hash uint64) {
		now := time.Now()
		stall.tick(now)
		if lastAt.IsZero() {
			first, firstAt = c.Diagnostics(), now
		} else {
			gaps.Observe(now.Sub(lastAt).Seconds())
		}
		lastAt = now
		if tick < r.cfg.Ticks {
			finalHash = hash // an observer or a catching-up bot may run past the last tick in a step
		}
		// Diagnostics copy the connection's statistics: a light client,
		// whose cost is the load generator's, samples them once every
		// lightSampleEvery ticks.
		if !r.cfg.Light || tick%lightSampleEvery == 0 {
			d := c.Diagnostics()
			rtts.Observe(d.RTT.Seconds())
			r.setLive(d, true)
		}
		if r.cfg.OnTick != nil {
			r.cfg.OnTick(r.index, tick, now)
		}
	}}
	epoch := time.Now()
	loop.Clock = func() time.Duration { return time.Since(epoch) }
	rw := rejoinWatch{cfg: &r.cfg.Rejoin, i: r.index}
	for loop.Applied() < r.cfg.Ticks && err == nil {
		if err = rw.before(ctx, c, loop.Applied()); err != nil {
			break
		}
		var n int
		if n, err = loop.Step(); err != nil || n > 0 {
			continue
		}
		if st := c.Status(); st >= lockstep.StatusEnded {
			err = fmt.Errorf("match %v after %d ticks", st, loop.Applied())
			if e, ok := c.(interface{ Err() error }); ok && e.Err() != nil {
				err = fmt.Errorf("%w: %v", err, e.Err())
			}
			break
		}
		if err = c.Wait(ctx); err != nil {
			err = cause(ctx, err)
		}
	}
	d := c.Diagnostics()
	r.setLive(d, true)
	span := metrics.Span(firstAt, lastAt)
	r.report.Ticks = min(loop.Applied(), r.cfg.Ticks)
	r.report.OrdersSent = d.OrdersSent
	r.report.LateOrders = d.LateOrders
	r.report.Strikes = d.Strikes
	r.report.Desyncs = d.Desyncs
	r.report.FinalHash = fmt.Sprintf("%016x", finalHash)
	r.report.RTTP50MS = 1e3 * rtts.Quantile(0.50)
	r.report.RTTP99MS = 1e3 * rtts.Quantile(0.99)
	r.report.TickGapP99MS = 1e3 * gaps.Quantile(0.99)
	r.report.RunAhead = d.RunAhead
	r.report.BytesUpPerS = metrics.PerSecond(d.BytesSent-first.BytesSent, span)
	r.report.BytesDownPerS = metrics.PerSecond(d.BytesReceived-first.BytesReceived, span)
	r.report.ClockCorrectionMS = ms(d.ClockCorrection)
	r.report.ClockDriftPPM = math.Round(d.ClockDriftPPM)
	r.report.ClockSteps = d.ClockSteps
	rw.finish(c, loop.Applied(), r.cfg.Ticks)
	rw.report(&r.report)
	return err
}

// cause returns the watchdog's reason if it cancelled ctx, else err.
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); errors.Is(c, ErrStalled) || errors.Is(c, ErrNoStart) {
		return c
	}
	return err
}

func (r *runner) setLive(d lockstep.Diagnostics, playing bool) {
	r.mu.Lock()
	r.live, r.playing = d, playing
	r.mu.Unlock()
}
