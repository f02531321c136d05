package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tickwire/tickwire/internal/relaybench"
	"github.com/tickwire/tickwire/internal/udpfloor"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// relayBenchReport is the JSON object "tickwire bench relay --json" prints.
type relayBenchReport struct {
	// (a) the relay core alone.
	CoreNsPerTick float64 `json:"core_ns_per_tick"`
	CoreTicks     int     `json:"core_ticks"`

	// (b) relay server capacity.
	TickRate        int        `json:"tps"`
	LatenessLimitMS float64    `json:"lateness_limit_ms"`
	GamesMax        int        `json:"games_max"`       // most games with p99 lateness under the limit
	LatenessP99MS   []float64  `json:"lateness_p99_ms"` // per step, as in steps
	JitterP99MS     []float64  `json:"jitter_p99_ms"`   // per step, as in steps
	Steps           []rampStep `json:"steps"`           // the ramp, step by step
	CPUSeconds      float64    `json:"cpu_seconds"`     // relay process (user+sys) over the ramp
	BotCPUSeconds   float64    `json:"bot_cpu_seconds"` // load-generating processes (user+sys)
	StoppedBecause  string     `json:"stopped_because"` // why the ramp ended
	LoadProcesses   int        `json:"load_processes"`  // bot processes started
	CapacityNote    string     `json:"capacity_note"`   // how lateness is measured
	CPUs            int        `json:"cpus"`            // logical CPUs of the machine
	LoadAverage     string     `json:"load_average"`    // /proc/loadavg before the ramp, if any

	// The datapath against the floor (plaintext): the figures of the
	// reference step, the largest under the lateness limit (else the
	// first), with the floor measured after the ramp at the datagram sizes
	// of the ramp's largest step; Encrypted the same figures of an
	// encrypted relay loaded by EncryptedGames games of light bots.
	datapathFigures
	ReferenceGames int              `json:"reference_games"`
	FloorRecv      udpfloor.Floor   `json:"floor_recv"` // the receive floor, at the size of datagrams in
	FloorSend      udpfloor.Floor   `json:"floor_send"` // the send floor, at the size of datagrams out
	Readers        int              `json:"readers"`    // the ramp relay's sockets (--readers)
	EncryptedGames int              `json:"encrypted_games"`
	Encrypted      *datapathFigures `json:"encrypted"` // null when --encrypted-games 0

	// (c) the demo's default match on the wire.
	MatchTicks             int     `json:"match_ticks"`
	BytesPerPlayerPerS     float64 `json:"bytes_per_player_per_s"` // up + down
	BytesUpPerPlayerPerS   float64 `json:"bytes_up_per_player_per_s"`
	BytesDownPerPlayerPerS float64 `json:"bytes_down_per_player_per_s"`
	MatchInSync            bool    `json:"match_in_sync"`
}

// rampStep is one step of the capacity ramp.
type rampStep struct {
	Games   int `json:"games"`   // games asked for (the probe game included)
	Playing int `json:"playing"` // games the relay had in play
	// LatenessP50MS and LatenessP99MS are how late the relay sent tick
	// frames against the tick schedule, over Frames frames of every game.
	LatenessP50MS float64 `json:"lateness_p50_ms"`
	LatenessP99MS float64 `json:"lateness_p99_ms"`
	Frames        uint64  `json:"frames"`
	// JitterP50MS and JitterP99MS are the probe clients' tick arrivals
	// against the earliest of the preceding second, over Samples arrivals:
	// the spread of arrivals, blind to a constant delay.
	JitterP50MS float64 `json:"jitter_p50_ms"`
	JitterP99MS float64 `json:"jitter_p99_ms"`
	Samples     int     `json:"samples"`
	CPUSeconds  float64 `json:"cpu_seconds"` // relay process during the measurement
	CPUCores    float64 `json:"cpu_cores"`   // CPUSeconds per second of measurement
	LateOrders  uint64  `json:"late_orders"` // during the measurement
	// DatagramsPerGameS is the relay's datagrams (in + out) per game per
	// second during the measurement; the datapath figures are its CPU
	// (the probe's clients included) against the floor.
	DatagramsPerGameS float64 `json:"datagrams_per_game_s"`
	datapathFigures
	PlayingAfter int `json:"playing_after"` // games in play at the end of the measurement
	// Removals counts the players the relay removed since the previous
	// step, by reason (timeout, lag-switch, frozen, left, …).
	Removals map[string]int `json:"removals,omitempty"`
	// ReceiveDrops counts the datagrams the kernel dropped at the relay's
	// sockets (receive buffer full) since the previous step's end, this
	// step's joins included: the relay fell behind its socket.
	ReceiveDrops uint64 `json:"receive_drops"`
}

// latenessLimit is the p99 broadcast lateness a step must stay under.
const latenessLimit = 2 * time.Millisecond

// benchRelay measures (a) the relay core's cost per game tick, (b) how many
// concurrent 4-player games one relay server process sustains with p99
// broadcast lateness under 2 ms, the load coming from light bots in
// separate processes, and (c) the bytes per player per second of the
// demo's default match.
func benchRelay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench relay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	games := fs.Int("games", 2000, "ramp ceiling: most concurrent games to try (0 skips the capacity run)")
	duration := fs.Duration("duration", 5*time.Second, "measurement time at each ramp step")
	coreTicks := fs.Int("core-ticks", 200_000, "game ticks of the core measurement")
	matchTicks := fs.Int("match-ticks", 900, "ticks of the demo match measured for bytes (0 skips it)")
	tps := fs.Int("tps", 30, "ticks per second of the capacity run")
	stopMS := fs.Float64("stop-ms", 20, "end the ramp after a step whose p99 lateness reaches this many ms")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (the server) over the capacity run to this file")
	encGames := fs.Int("encrypted-games", 25, "games of light bots loading an encrypted relay for the encrypted figures (0 skips them)")
	floorN := fs.Int("floor-datagrams", 100_000, "datagrams per side of the UDP floor measurement")
	readers := fs.Int("readers", 1, "the ramp's relay reads with this many sockets on its port (SO_REUSEPORT), one goroutine each")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *games < 0 || *duration <= 0 || *coreTicks < 1 || *matchTicks < 0 || *tps < 1 || *tps > 1000 || *stopMS < ms(latenessLimit) ||
		*encGames < 0 || *floorN < 1 || *readers < 1 {
		return fmt.Errorf("%w: bench relay [--json] [--games N] [--duration D] [--core-ticks N] [--match-ticks N] [--tps N] [--stop-ms X] [--encrypted-games N] [--floor-datagrams N] [--readers N] [--cpuprofile FILE]", errUsage)
	}
	progress := newProgressLine(stderr, *asJSON)
	defer progress.clear()
	r := relayBenchReport{CoreTicks: *coreTicks, TickRate: *tps, LatenessLimitMS: ms(latenessLimit), MatchTicks: *matchTicks,
		LatenessP99MS: []float64{}, JitterP99MS: []float64{}, Steps: []rampStep{}}
	var err error
	if r.CoreNsPerTick, err = relaybench.Run(*coreTicks); err != nil {
		return err
	}
	fmt.Fprintf(progress, "core: %.0f ns per game tick\n", r.CoreNsPerTick)
	if *games > 0 {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		r.Readers = *readers
		err = rampCapacity(ctx, &r, *games, *duration, *stopMS, progress)
		stop()
		if err != nil {
			return err
		}
		if err := r.encrypted(ctx, *encGames, *duration, progress); err != nil {
			return err
		}
		if err := r.floor(*floorN); err != nil {
			return err
		}
	}
	if *matchTicks > 0 {
		f, err := parseDemoFlags([]string{"--ticks", strconv.Itoa(*matchTicks)}, stderr)
		if err != nil {
			return err
		}
		m, _, err := playDemo(ctx, f, nil)
		if err != nil {
			return err
		}
		for _, p := range m.Players {
			r.BytesUpPerPlayerPerS += p.BytesUpPerS / float64(len(m.Players))
			r.BytesDownPerPlayerPerS += p.BytesDownPerS / float64(len(m.Players))
		}
		r.BytesPerPlayerPerS = r.BytesUpPerPlayerPerS + r.BytesDownPerPlayerPerS
		r.MatchInSync = m.AllInSync
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	printRelayBench(stdout, &r)
	return nil
}

func printRelayBench(w io.Writer, r *relayBenchReport) {
	fmt.Fprintf(w, "relay core: %.0f ns per 4-player game tick (%d ticks)\n", r.CoreNsPerTick, r.CoreTicks)
	if len(r.Steps) > 0 {
		fmt.Fprintf(w, "relay server at %d tps, p99 broadcast lateness limit %.1f ms (%d CPUs, load average %s):\n",
			r.TickRate, r.LatenessLimitMS, r.CPUs, r.LoadAverage)
		fmt.Fprintf(w, "  %6s %8s %9s %9s %10s %10s %9s %10s %12s %9s %9s\n", "games", "playing", "late p50", "late p99", "jitter p50", "jitter p99",
			"cpu cores", "late orders", "dg/game-s", "µs/dg", "rx drops")
		for _, s := range r.Steps {
			fmt.Fprintf(w, "  %6d %8d %9.2f %9.2f %10.2f %10.2f %9.2f %10d %12.0f %9.1f %9d\n", s.Games, s.Playing, s.LatenessP50MS, s.LatenessP99MS,
				s.JitterP50MS, s.JitterP99MS, s.CPUCores, s.LateOrders, s.DatagramsPerGameS, s.CPUUsPerDatagram, s.ReceiveDrops)
		}
		fmt.Fprintf(w, "  games max %d; relay cpu %.1f s, bots cpu %.1f s; ramp ended: %s\n", r.GamesMax, r.CPUSeconds, r.BotCPUSeconds, r.StoppedBecause)
		fmt.Fprintf(w, "datapath at %d games: %.2f µs of server CPU per datagram, floor %.2f µs (receive %.2f at %d bytes, send %.2f at %d bytes), ratio %.2f; %.0f games per core; server %.1f CPU-s, load generator %.1f CPU-s\n",
			r.ReferenceGames, r.CPUUsPerDatagram, r.FloorUsPerDatagram, r.FloorRecv.RecvUs, r.FloorRecv.Size, r.FloorSend.SendUs, r.FloorSend.Size,
			r.RatioToFloor, r.GamesPerCore, r.ServerCPUSeconds, r.LoadgenCPUSeconds)
		if e := r.Encrypted; e != nil {
			fmt.Fprintf(w, "encrypted at %d games: %.2f µs per datagram, ratio %.2f; %.0f games per core; server %.1f CPU-s, light bots %.1f CPU-s\n",
				r.EncryptedGames, e.CPUUsPerDatagram, e.RatioToFloor, e.GamesPerCore, e.ServerCPUSeconds, e.LoadgenCPUSeconds)
		}
	}
	if r.MatchTicks > 0 {
		fmt.Fprintf(w, "demo match (%d ticks): %.0f bytes per player per second (%.0f up, %.0f down), in sync %v\n",
			r.MatchTicks, r.BytesPerPlayerPerS, r.BytesUpPerPlayerPerS, r.BytesDownPerPlayerPerS, r.MatchInSync)
	}
}

// rampSteps are the game counts of the ramp up to most: 25 times 1, 2,
// 3, 4, 6, 8, 12, 16, … (each power of two and one and a half times it),
// then most itself.
func rampSteps(most int) []int {
	var steps []int
	add := func(g int) bool {
		if g >= most {
			return false
		}
		steps = append(steps, g)
		return true
	}
	for p := 1; add(25 * p); p *= 2 {
		if p >= 2 && !add(25*p*3/2) {
			break
		}
	}
	return append(steps, most)
}

// rampCapacity runs a relay server in this process and ramps the number of
// concurrent games, adding each step's games with a new light-bot
// process, until a step's p99 lateness reaches stopMS, its games fail to
// start, or the ceiling is reached. GamesMax is the largest step under
// the lateness limit with every smaller step under it too.
func rampCapacity(ctx context.Context, r *relayBenchReport, most int, measure time.Duration, stopMS float64, progress io.Writer) error {
	rp, err := startRamp(ctx, r, most, progress)
	if err != nil {
		return err
	}
	defer rp.stop()
	r.StoppedBecause = fmt.Sprintf("reached --games %d", most)
	prev := 0 // the previous step's games
	for k, target := range rampSteps(most) {
		if err := rp.addGames(k, target); err != nil {
			return err
		}
		step, err := rp.step(ctx, target, measure)
		if err != nil {
			return err
		}
		r.Steps = append(r.Steps, step)
		r.LatenessP99MS = append(r.LatenessP99MS, step.LatenessP99MS)
		r.JitterP99MS = append(r.JitterP99MS, step.JitterP99MS)
		if why := rp.stopReason(step, stopMS); why != "" {
			r.StoppedBecause = why
			break
		}
		if step.LatenessP99MS < ms(latenessLimit) && r.GamesMax == prev {
			r.GamesMax = target
		}
		prev = target
	}
	return nil
}

// ramp is the capacity run's apparatus: the relay, the probe game and the
// load processes.
type ramp struct {
	r        *relayBenchReport
	exe      string
	lr       *localRelay
	lockstep *lockstepserver.Lockstep // the relay's model, for its figures
	removals *removalCount
	probe    *probe
	progress io.Writer

	probeWG   sync.WaitGroup
	stopProbe context.CancelFunc
	probeEnd  lockstepbot.Report // set when the probe game ends

	loads    []*exec.Cmd
	running  int // games asked for so far, the probe included
	cpuStart time.Duration
	drops    uint64 // the relay's receive drops at the previous step's end
}

// startRamp starts the relay, sized for most games, and the probe game:
// four light clients in this process whose tick arrivals measure the
// broadcast jitter.
func startRamp(ctx context.Context, r *relayBenchReport, most int, progress io.Writer) (*ramp, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	tcfg := lanes.TransportConfig()
	tcfg.MaxConnections = 4*most + 64
	tcfg.AcceptBacklog = 4096
	rp := &ramp{r: r, exe: exe, removals: newRemovalCount(), progress: progress, running: 1}
	// The relay runs its default policy; the core's host-stall rules keep
	// a step's join wave from striking everyone. Removals are counted per
	// step. The load generators fill thousands of rooms from loopback:
	// the game and per-address waiting room limits are lifted.
	rp.lockstep = lockstepserver.New(lockstepserver.Config{OnEvent: rp.removals.event})
	cfg := server.Config{TickRate: r.TickRate, Models: []room.Model{rp.lockstep.Model()}, MaxGames: -1, MaxWaitingPerAddr: -1}
	ln, err := listenRelay(ctx, "127.0.0.1:0", r.Readers, tcfg)
	if err != nil {
		return nil, err
	}
	rp.lr = serveLocalRelay(ctx, ln, cfg)
	r.CPUs = runtime.NumCPU()
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		r.LoadAverage = strings.TrimSpace(string(b))
	}
	r.CapacityNote = "lateness: how late the relay sent each tick frame against the tick schedule (window end plus deadline), " +
		"over every game, from its broadcast-lateness histogram (interpolated within buckets); " +
		"jitter: arrival of each tick at a probe game's clients in the relay's process, " +
		"minus the earliest arrival against the tick schedule over the preceding second"
	rp.probe = newProbe(time.Second / time.Duration(r.TickRate))
	pctx, stop := context.WithCancel(ctx)
	rp.stopProbe = stop
	addr := rp.lr.addr.String()
	rp.probeWG.Go(func() {
		rp.probeEnd, _ = lockstepbot.Run(pctx, lockstepbot.Config{Players: 4, Ticks: math.MaxUint32, Light: true, OnTick: rp.probe.add,
			Join: func(ctx context.Context, i int) (lockstepbot.Client, error) {
				conn, err := transport.DialUDP(ctx, addr, lanes.TransportConfig())
				if err != nil {
					return nil, err
				}
				return joinRoom(ctx, conn, "probe", 4)
			}})
	})
	rp.cpuStart = cpuTime()
	return rp, nil
}

// addGames starts a light-bot process playing the games step k adds to
// reach target.
func (rp *ramp) addGames(k, target int) error {
	add := target - rp.running
	if add <= 0 {
		return nil
	}
	// The light load generator: plaintext, like this relay (its players
	// share sockets, which only plaintext connections can); the encrypted
	// figures come from a run of their own.
	c := exec.Command(rp.exe, "loadgen", "--server", rp.lr.addr.String(), "--room", fmt.Sprintf("load%d", k),
		"--players", "4", "--games", strconv.Itoa(add))
	c.Stdout = io.Discard
	c.Stderr = rp.progress
	if err := c.Start(); err != nil {
		return err
	}
	rp.loads = append(rp.loads, c)
	rp.r.LoadProcesses++
	rp.running = target
	return nil
}

// step waits for target games to play and settle, then measures for
// measure: the relay's broadcast lateness, the probe's jitter, CPU,
// datagrams and removals.
func (rp *ramp) step(ctx context.Context, target int, measure time.Duration) (rampStep, error) {
	srv := rp.lr.srv
	playing, err := waitPlaying(ctx, srv, target, 20*time.Second+time.Duration(target)*10*time.Millisecond)
	if err != nil {
		return rampStep{}, err
	}
	step := rampStep{Games: target, Playing: playing, LatenessP50MS: -1, LatenessP99MS: -1, JitterP50MS: -1, JitterP99MS: -1}
	if playing < target {
		step.ReceiveDrops = rp.takeDrops()
		return step, nil
	}
	if err := settle(ctx, rp.lockstep, 2*time.Second, 30*time.Second); err != nil {
		return step, err
	}
	rp.probe.take()
	ls0, m := rp.lockstep.Stats(), startMeter(srv, rp.loads)
	if err := sleepCtx(ctx, measure); err != nil {
		return step, err
	}
	samples := rp.probe.take()
	step.datapathFigures = m.stop(target)
	step.CPUSeconds = step.ServerCPUSeconds
	st, ls := srv.Stats(), rp.lockstep.Stats()
	step.CPUCores = step.CPUSeconds / step.Seconds
	step.Removals = rp.removals.take()
	step.ReceiveDrops = rp.takeDrops()
	step.LateOrders = ls.LateOrders - ls0.LateOrders
	step.DatagramsPerGameS = float64(step.DatagramsIn+step.DatagramsOut) / step.Seconds / float64(target)
	step.PlayingAfter = st.ActiveGames
	if d := ls.BroadcastLateness.Sub(ls0.BroadcastLateness); d.Count > 0 {
		step.Frames = d.Count
		step.LatenessP50MS, step.LatenessP99MS = 1e3*d.Quantile(0.50), 1e3*d.Quantile(0.99)
	}
	step.Samples = len(samples)
	if len(samples) > 0 {
		slices.Sort(samples)
		step.JitterP50MS = ms(metrics.Quantile(samples, 0.50))
		step.JitterP99MS = ms(metrics.Quantile(samples, 0.99))
	}
	fmt.Fprintf(rp.progress, "step %d games: p99 lateness %.2f ms, p99 jitter %.2f ms, relay %.2f cores, load generator %.2f cores, %.0f datagrams per game-second, %.1f µs per datagram, removals %v, receive drops %d\n",
		target, step.LatenessP99MS, step.JitterP99MS, step.CPUCores, step.LoadgenCPUSeconds/step.Seconds, step.DatagramsPerGameS, step.CPUUsPerDatagram, step.Removals, step.ReceiveDrops)
	return step, nil
}

// takeDrops returns the relay's receive drops since the previous take.
func (rp *ramp) takeDrops() uint64 {
	d := receiveDrops(rp.lr.addr.(*net.UDPAddr).Port)
	n := d - rp.drops
	rp.drops = d
	return n
}

// stopReason says why the ramp must end after step, or "": the step's
// failure, and whether the relay's socket overflowed during it.
func (rp *ramp) stopReason(step rampStep, stopMS float64) string {
	why := rp.failure(step, stopMS)
	if why != "" && step.ReceiveDrops > 0 {
		why += fmt.Sprintf("; the relay fell behind its socket: the kernel dropped %d datagrams (receive buffer full)", step.ReceiveDrops)
	}
	return why
}

// failure says how step failed, or "".
func (rp *ramp) failure(step rampStep, stopMS float64) string {
	switch {
	case step.Playing < step.Games:
		return fmt.Sprintf("only %d of %d games started", step.Playing, step.Games)
	case step.Samples == 0:
		rp.stopProbe()
		rp.probeWG.Wait()
		why := fmt.Sprintf("the probe game stopped at %d games", step.Games)
		for _, p := range rp.probeEnd.Players {
			if p.Error != "" {
				why += fmt.Sprintf("; probe player %d: %s", p.ID, p.Error)
			}
		}
		return why
	case step.LatenessP99MS >= stopMS:
		return fmt.Sprintf("p99 lateness %.2f ms at %d games", step.LatenessP99MS, step.Games)
	}
	return ""
}

// stop ends the probe and the load processes, adds up their CPU time and
// stops the relay.
func (rp *ramp) stop() {
	rp.stopProbe()
	rp.probeWG.Wait()
	for _, c := range rp.loads {
		c.Process.Signal(os.Interrupt)
	}
	for _, c := range rp.loads {
		c.Wait()
	}
	rp.r.BotCPUSeconds = loadCPU(rp.loads).Seconds()
	rp.r.CPUSeconds = (cpuTime() - rp.cpuStart).Seconds()
	rp.lr.stop()
}

// waitPlaying waits until want games are in play or timeout passes, and
// returns how many are.
func waitPlaying(ctx context.Context, srv *server.Server, want int, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		n := 0
		for _, rs := range srv.Stats().Rooms {
			if rs.Phase == "playing" {
				n++
			}
		}
		if n >= want || time.Now().After(deadline) {
			return n, nil
		}
		if err := sleepCtx(ctx, 250*time.Millisecond); err != nil {
			return n, err
		}
	}
}

// settle waits until the relay has counted no late order for quiet (the
// join wave of a step's new games disturbs the running ones for a few
// seconds, until QoS adapts), or at most limit.
func settle(ctx context.Context, ls *lockstepserver.Lockstep, quiet, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	last, since := ls.Stats().LateOrders, time.Now()
	for time.Since(since) < quiet && time.Now().Before(deadline) {
		if err := sleepCtx(ctx, 250*time.Millisecond); err != nil {
			return err
		}
		if n := ls.Stats().LateOrders; n != last {
			last, since = n, time.Now()
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cpuTime is this process's user+sys CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// removalCount counts the relay's player removals by reason.
type removalCount struct {
	mu sync.Mutex
	n  map[string]int
}

func newRemovalCount() *removalCount { return &removalCount{n: map[string]int{}} }

// event is a lockstepserver.Config.OnEvent hook.
func (c *removalCount) event(_ string, ev relay.Event) {
	if rm, ok := ev.(relay.PlayerRemoved); ok {
		c.mu.Lock()
		c.n[rm.Reason.String()]++
		c.mu.Unlock()
	}
}

// take returns the counts since the previous take.
func (c *removalCount) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// probe turns the tick arrivals of the probe game's clients into
// broadcast jitter: a tick's arrival minus its place on the tick
// schedule, less the smallest such offset of that client over the
// preceding second (the schedule's phase, which includes the deadline and
// the loopback path and moves when QoS changes the deadline).
type probe struct {
	interval time.Duration
	epoch    time.Time

	mu      sync.Mutex
	recent  map[int][]time.Duration // per client, offsets of the last second
	samples []time.Duration
}

func newProbe(interval time.Duration) *probe {
	return &probe{interval: interval, epoch: time.Now(), recent: map[int][]time.Duration{}}
}

func (p *probe) add(client int, tick uint64, at time.Time) {
	off := at.Sub(p.epoch) - time.Duration(tick)*p.interval
	p.mu.Lock()
	defer p.mu.Unlock()
	w := append(p.recent[client], off)
	if n := int(time.Second / p.interval); len(w) > n {
		w = w[:copy(w, w[len(w)-n:])]
	}
	p.recent[client] = w
	base := off
	for _, o := range w {
		base = min(base, o)
	}
	p.samples = append(p.samples, off-base)
}

// take returns the jitter samples since the previous take.
func (p *probe) take() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.samples
	p.samples = nil
	return s
}

// encrypted measures the encrypted figures: a relay with the secure
// handshake loaded by games games of light bots (each with its own
// socket: an encrypted connection is known by its peer's address).
func (r *relayBenchReport) encrypted(ctx context.Context, games int, measure time.Duration, progress io.Writer) error {
	if games == 0 {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	run := steadyRun{models: []room.Model{lockstepserver.New(lockstepserver.Config{}).Model()}, tickRate: r.TickRate, secure: true,
		games: games, clients: 4 * games, settle: 2 * time.Second, measure: measure, progress: progress,
		load: func(addr, key string) []*exec.Cmd {
			return []*exec.Cmd{exec.Command(exe, "bot", "--light", "--server", addr, "--server-key", key, "--room", "enc",
				"--players", "4", "--games", strconv.Itoa(games), "--ticks", strconv.Itoa(math.MaxInt32))}
		}}
	f, err := run.run(ctx)
	if err != nil {
		return fmt.Errorf("encrypted run: %w", err)
	}
	r.EncryptedGames, r.Encrypted = games, &f
	fmt.Fprintf(progress, "encrypted, %d games: %.1f µs per datagram\n", games, f.CPUUsPerDatagram)
	return nil
}

// floor measures the UDP floor at the datagram sizes of the ramp's
// largest step and sets every step's ratio, the reference figures and
// the encrypted ones' (whose datagrams are larger by the AEAD tag: the
// floor hardly depends on size).
func (r *relayBenchReport) floor(count int) error {
	if len(r.Steps) == 0 {
		return nil
	}
	big := r.Steps[0].datapathFigures
	for _, s := range r.Steps {
		if s.DatagramsIn+s.DatagramsOut > big.DatagramsIn+big.DatagramsOut {
			big = s.datapathFigures
		}
	}
	var err error
	if r.FloorRecv, r.FloorSend, err = floorPair(big.BytesPerDatagramIn, big.BytesPerDatagramOut, count); err != nil {
		return err
	}
	ref := 0
	for i := range r.Steps {
		r.Steps[i].withFloor(r.FloorRecv, r.FloorSend)
		if r.Steps[i].Games == r.GamesMax {
			ref = i
		}
	}
	r.datapathFigures, r.ReferenceGames = r.Steps[ref].datapathFigures, r.Steps[ref].Games
	if r.Encrypted != nil {
		r.Encrypted.withFloor(r.FloorRecv, r.FloorSend)
	}
	return nil
}
