package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

// simReport is the JSON object "tickwire bench sim --json" prints. Times are
// nanoseconds per operation on one goroutine.
type simReport struct {
	Players       int     `json:"players"`
	Units         int     `json:"units_per_player"`
	MapSize       int     `json:"map_size"`
	Entities      int     `json:"entities"`
	UnitsAlive    int     `json:"units_alive"`
	TickNs        float64 `json:"tick_ns"`
	StateHashNs   float64 `json:"state_hash_ns"`
	FogUpdateNs   float64 `json:"fog_update_ns"`
	SnapshotNs    float64 `json:"snapshot_ns"`
	RestoreNs     float64 `json:"restore_ns"`
	SnapshotBytes int     `json:"snapshot_bytes"`
}

// benchSim measures the reference simulation on the benchmark battle (see
// scenario.BenchmarkParams): a tick with bot orders, the state hash, one
// tick's fog update for every player, and snapshot/restore. Ticks and fog
// updates start again from the engaged battle every 100 ticks (untimed) so
// the armies stay near full strength.
func benchSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := scenario.BenchmarkParams()
	fs := flag.NewFlagSet("bench sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	players := fs.Int("players", def.Players, "players")
	units := fs.Int("units", def.UnitsPerPlayer, "starting units per player")
	mapSize := fs.Int("map", def.MapSize, "map size in cells")
	seed := fs.Uint64("seed", def.Seed, "seed")
	benchtime := fs.Duration("benchtime", time.Second, "minimum time spent on each measurement")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p := scenario.Params{Players: *players, UnitsPerPlayer: *units, MapSize: *mapSize, Seed: *seed}
	s, team, err := scenario.Battle(p, scenario.BattleWarmup)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	start := s.Snapshot()
	r := simReport{Players: *players, Units: *units, MapSize: s.Terrain().Width(), Entities: len(s.Entities()), UnitsAlive: scenario.Units(s), SnapshotBytes: len(start)}
	var orders []protocol.TimestampedOrder
	var runs int
	// untimed runs before each timed step: every 100 steps, rewind.
	rewind := func() error {
		runs++
		if runs%100 == 0 {
			return s.Restore(start)
		}
		return nil
	}
	tick := func() error {
		orders = team.Orders(s, orders[:0])
		return s.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: orders})
	}
	if r.TickNs, err = measure(ctx, *benchtime, rewind, tick); err != nil {
		return err
	}
	if r.StateHashNs, err = measure(ctx, *benchtime, nil, func() error { s.StateHash(); return nil }); err != nil {
		return err
	}
	fog := sim.NewRadiusFogProvider(s)
	var src []sim.SightSource
	advance := func() error {
		if err := rewind(); err != nil {
			return err
		}
		return tick()
	}
	fogUpdate := func() error {
		for i := 1; i <= s.Players(); i++ {
			pl := protocol.PlayerID(i)
			src = s.AppendSightSources(src[:0], pl)
			fog.UpdateVisibility(pl, src, s.Terrain())
			_ = fog.VisibleEntities(pl)
		}
		return nil
	}
	if r.FogUpdateNs, err = measure(ctx, *benchtime, advance, fogUpdate); err != nil {
		return err
	}
	if r.SnapshotNs, err = measure(ctx, *benchtime, nil, func() error { s.Snapshot(); return nil }); err != nil {
		return err
	}
	if r.RestoreNs, err = measure(ctx, *benchtime, nil, func() error { return s.Restore(start) }); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "reference sim: %d players × %d units on a %d-cell map; after the warm-up %d units alive, %d entities\n",
		r.Players, r.Units, r.MapSize, r.UnitsAlive, r.Entities)
	fmt.Fprintf(stdout, "tick %.1f µs, state hash %.1f µs, fog update (all players) %.1f µs\n", r.TickNs/1e3, r.StateHashNs/1e3, r.FogUpdateNs/1e3)
	fmt.Fprintf(stdout, "snapshot %d bytes: %.1f µs to take, %.1f µs to restore\n", r.SnapshotBytes, r.SnapshotNs/1e3, r.RestoreNs/1e3)
	return nil
}

// measure runs setup (untimed, may be nil) and then op (timed) until at
// least minTime of op has accumulated, and returns ns per op.
func measure(ctx context.Context, minTime time.Duration, setup, op func() error) (float64, error) {
	var spent time.Duration
	n := 0
	for spent < minTime || n == 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if setup != nil {
			if err := setup(); err != nil {
				return 0, err
			}
		}
		t := time.Now()
		if err := op(); err != nil {
			return 0, err
		}
		spent += time.Since(t)
		n++
	}
	return float64(spent.Nanoseconds()) / float64(n), nil
}
