package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/internal/fogbench"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim/scenario"
)

// fogBenchReport is the JSON object "tickwire bench fogauth --json"
// prints.
type fogBenchReport struct {
	Players           int     `json:"players"`
	Entities          float64 `json:"entities"`
	VisiblePerClient  float64 `json:"visible_per_client"`
	CostExclSimP50US  float64 `json:"cost_excl_sim_p50_us"`
	CostExclSimP99US  float64 `json:"cost_excl_sim_p99_us"`
	CostExclSimMeanUS float64 `json:"cost_excl_sim_mean_us"`
	// CostExclSimCPUUS is the mean CPU time of the same work on its
	// thread (Linux): what it costs without waiting for a core.
	CostExclSimCPUUS float64 `json:"cost_excl_sim_cpu_mean_us,omitempty"`
	SimTickMeanUS    float64 `json:"sim_tick_mean_us"`
	AllocsPerTick    float64 `json:"allocs_per_tick"`
	// Decoding the clients' orders, measured apart from the cost above
	// (issue 10 lists fog, deltas, accumulator and serialisation).
	OrdersMeanUS        float64 `json:"orders_mean_us"`
	OrdersAllocsPerTick float64 `json:"orders_allocs_per_tick"`
	GamesPerCore        float64 `json:"games_per_core_at_30tps"`
	MemoryBytes         uint64  `json:"memory_per_game_bytes"` // the room and 8 client cores (an upper bound of the server's)

	BudgetBytesPerTick int          `json:"budget_bytes_per_tick"`
	Traffic            []fogTraffic `json:"traffic"`

	JoinSnapshotEntities int `json:"join_snapshot_entities"`
	JoinSnapshotTicks    int `json:"join_snapshot_ticks"`

	Starvation []fogTier `json:"starvation"`
}

// fogTraffic is one scenario's state traffic per client.
type fogTraffic struct {
	Scenario          string  `json:"scenario"`
	BytesPerClientSec float64 `json:"bytes_per_client_per_s"`
	MaxBytesTick      int     `json:"max_bytes_per_client_tick"`
	SaturatedTicks    float64 `json:"saturated_fraction"`
}

// fogTier is one priority tier's waits at saturation.
type fogTier struct {
	Tier     string `json:"tier"`
	MaxTicks uint64 `json:"max_wait_ticks"`
	P99Ticks uint64 `json:"p99_wait_ticks"`
}

// benchFogAuth measures the fog-authoritative room (see package
// fogbench): the server's cost per tick besides the simulation in the
// 8-player battle, the traffic per client in a quiet phase, in combat and
// in the battle, the ticks a join snapshot takes, waits per priority tier
// at saturation, memory per game and games per core.
func benchFogAuth(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench fogauth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	ticks := fs.Int("ticks", 300, "ticks measured in the battle")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *ticks < 1 {
		return fmt.Errorf("%w: --ticks must be at least 1", errUsage)
	}
	r := fogBenchReport{Players: scenario.BenchmarkParams().Players, BudgetBytesPerTick: fogauth.Config{}.BudgetBytes()}
	if err := fogBattle(ctx, &r, *ticks); err != nil {
		return err
	}
	for _, sc := range []struct {
		name string
		o    fogbench.Options
		from int
	}{
		{"quiet", fogbench.Options{Params: scenario.Params{Players: 4, Seed: 3}, Idle: true}, 60},
		{"combat", fogbench.Options{Params: scenario.Params{Players: 4, Seed: 3}}, 120},
	} {
		t, err := fogTrafficOf(sc.name, sc.o, sc.from, 300)
		if err != nil {
			return err
		}
		r.Traffic = append(r.Traffic, t)
	}
	if err := fogJoin(&r); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "battle: %d players, %.0f entities, %.0f visible per client\n", r.Players, r.Entities, r.VisiblePerClient)
	fmt.Fprintf(stdout, "server cost per tick excluding the simulation and orders: p50 %.0f µs, p99 %.0f µs, mean %.0f µs (CPU time %.0f µs); %.1f allocations per tick\n",
		r.CostExclSimP50US, r.CostExclSimP99US, r.CostExclSimMeanUS, r.CostExclSimCPUUS, r.AllocsPerTick)
	fmt.Fprintf(stdout, "decoding orders: mean %.1f µs, %.1f allocations per tick\n", r.OrdersMeanUS, r.OrdersAllocsPerTick)
	fmt.Fprintf(stdout, "simulation tick mean %.0f µs; %.1f games per core at 30 ticks/s; %d bytes of memory per game\n",
		r.SimTickMeanUS, r.GamesPerCore, r.MemoryBytes)
	fmt.Fprintf(stdout, "budget %d bytes per client per tick\n", r.BudgetBytesPerTick)
	for _, t := range r.Traffic {
		fmt.Fprintf(stdout, "  %-7s %8.0f B/s per client, at most %d B in a tick, saturated %.0f%% of client-ticks\n",
			t.Scenario, t.BytesPerClientSec, t.MaxBytesTick, 100*t.SaturatedTicks)
	}
	fmt.Fprintf(stdout, "join snapshot of %d entities: %d ticks\n", r.JoinSnapshotEntities, r.JoinSnapshotTicks)
	for _, t := range r.Starvation {
		fmt.Fprintf(stdout, "  %-10s worst wait %3d ticks, p99 %3d\n", t.Tier, t.MaxTicks, t.P99Ticks)
	}
	return nil
}

// fogBattle measures the battle: cost, allocations, memory, traffic and
// waits.
func fogBattle(ctx context.Context, r *fogBenchReport, ticks int) error {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heap0 := ms.HeapAlloc
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var costs []time.Duration
	var sim, cpu, orders time.Duration
	var allocs, ordersAllocs uint64
	var bytes, maxTick, saturated int
	var g *fogbench.Game
	for i := range ticks {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if i%fogbench.RestartEvery == 0 {
			if g != nil {
				fogWaits(r, g.Room)
			}
			var err error
			if g, err = fogbench.Battle(fogauth.Config{}); err != nil {
				return err
			}
			if i == 0 { // the room and its 8 client cores, warmed up
				runtime.GC()
				runtime.ReadMemStats(&ms)
				r.MemoryBytes = ms.HeapAlloc - min(heap0, ms.HeapAlloc)
			}
		}
		before := slices.Clone(g.Bytes)
		sat := g.Room.Stats().Saturated
		if err := g.Submit(); err != nil {
			return err
		}
		runtime.ReadMemStats(&ms)
		m0, o0 := ms.Mallocs, time.Now()
		if err := g.StepOrders(); err != nil {
			return err
		}
		orders += time.Since(o0)
		runtime.ReadMemStats(&ms)
		ordersAllocs += ms.Mallocs - m0
		m0 = ms.Mallocs
		c0, _ := fogbench.ThreadCPU()
		t0 := time.Now()
		if err := g.StepAcks(); err != nil {
			return err
		}
		t1 := time.Now()
		c1, _ := fogbench.ThreadCPU()
		runtime.ReadMemStats(&ms)
		allocs += ms.Mallocs - m0
		if err := g.Room.Simulate(); err != nil {
			return err
		}
		runtime.ReadMemStats(&ms)
		m0 = ms.Mallocs
		c2, _ := fogbench.ThreadCPU()
		t2 := time.Now()
		g.Room.Publish()
		t3 := time.Now()
		c3, _ := fogbench.ThreadCPU()
		cpu += c1 - c0 + c3 - c2
		runtime.ReadMemStats(&ms)
		// The simulation's own allocations are not the server's: count
		// only the phases around it, measured apart.
		allocs += ms.Mallocs - m0
		costs = append(costs, t1.Sub(t0)+t3.Sub(t2))
		sim += t2.Sub(t1)
		for p := 1; p <= r.Players; p++ {
			r.VisiblePerClient += float64(len(g.Room.Game().Visible(protocol.PlayerID(p)))) / float64(r.Players*ticks)
		}
		r.Entities += float64(len(g.RTS.Sim().Entities())) / float64(ticks)
		if err := g.Deliver(); err != nil {
			return err
		}
		for c := range g.Bytes {
			n := g.Bytes[c] - before[c]
			bytes += n
			maxTick = max(maxTick, n)
		}
		saturated += int(g.Room.Stats().Saturated - sat)
	}
	fogWaits(r, g.Room)
	slices.Sort(costs)
	var total time.Duration
	for _, c := range costs {
		total += c
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	r.CostExclSimP50US, r.CostExclSimP99US = us(metrics.Quantile(costs, 0.50)), us(metrics.Quantile(costs, 0.99))
	r.CostExclSimMeanUS = us(total / time.Duration(ticks))
	if _, ok := fogbench.ThreadCPU(); ok {
		r.CostExclSimCPUUS = us(cpu / time.Duration(ticks))
	}
	r.SimTickMeanUS = us(sim / time.Duration(ticks))
	r.AllocsPerTick = float64(allocs) / float64(ticks)
	r.OrdersMeanUS = us(orders / time.Duration(ticks))
	r.OrdersAllocsPerTick = float64(ordersAllocs) / float64(ticks)
	if perTick := (total + sim) / time.Duration(ticks); perTick > 0 {
		r.GamesPerCore = float64(time.Second) / float64(30*perTick)
	}
	clients := r.Players
	r.Traffic = append(r.Traffic, fogTraffic{Scenario: "battle", BytesPerClientSec: float64(bytes) / float64(clients*ticks) * 30,
		MaxBytesTick: maxTick, SaturatedTicks: float64(saturated) / float64(clients*ticks)})
	return nil
}

// fogWaits folds a room's waits per tier into the report (worst of the
// rooms measured).
func fogWaits(r *fogBenchReport, room *fogauth.Room) {
	st := room.Stats()
	if r.Starvation == nil {
		r.Starvation = make([]fogTier, fogauth.NumTiers)
	}
	for t := range fogauth.NumTiers {
		w := &r.Starvation[t]
		w.Tier = t.String()
		w.MaxTicks = max(w.MaxTicks, st.MaxWait[t])
		w.P99Ticks = max(w.P99Ticks, room.WaitQuantile(t, 0.99))
	}
}

// fogTrafficOf measures the state traffic per client of a match from tick
// from for n ticks.
func fogTrafficOf(name string, o fogbench.Options, from, n int) (fogTraffic, error) {
	g, err := fogbench.New(o)
	if err != nil {
		return fogTraffic{}, err
	}
	var start []int
	var sat uint64
	maxTick := 0
	for i := range from + n {
		if i == from {
			start, sat = slices.Clone(g.Bytes), g.Room.Stats().Saturated
		}
		before := slices.Clone(g.Bytes)
		if err := g.Tick(); err != nil {
			return fogTraffic{}, err
		}
		if i >= from {
			for c := range g.Bytes {
				maxTick = max(maxTick, g.Bytes[c]-before[c])
			}
		}
	}
	total := 0
	for c := range g.Bytes {
		total += g.Bytes[c] - start[c]
	}
	clients := len(g.Clients)
	return fogTraffic{Scenario: name, BytesPerClientSec: float64(total) / float64(clients*n) * float64(g.Room.Config().TickRate),
		MaxBytesTick: maxTick, SaturatedTicks: float64(g.Room.Stats().Saturated-sat) / float64(clients*n)}, nil
}

// fogJoin counts the ticks a full-map spectator's join snapshot of about
// 200 entities takes at the default budget (every StateUpdate delivered
// and acknowledged at once).
func fogJoin(r *fogBenchReport) error {
	g, err := fogbench.New(fogbench.Options{Params: scenario.Params{Players: 2, UnitsPerPlayer: 60, Seed: 4}, Spectators: 1,
		Idle: true, Room: fogauth.Config{FullMapSpectators: true}})
	if err != nil {
		return err
	}
	spectator := fogauth.ClientID(len(g.Clients))
	for t := 1; t <= 1000; t++ {
		if err := g.Tick(); err != nil {
			return err
		}
		if g.Room.Converged(spectator) {
			r.JoinSnapshotEntities, r.JoinSnapshotTicks = len(g.Room.Visible(spectator)), t
			return nil
		}
	}
	return fmt.Errorf("bench fogauth: the join snapshot did not complete")
}
