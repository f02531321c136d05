package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// demoReport is the summary "tickwire demo" prints (as JSON with --json).
type demoReport struct {
	Players   int            `json:"players"`
	Ticks     uint64         `json:"ticks"`
	Seed      uint64         `json:"seed"`
	MapSize   int            `json:"map_size"`
	Orders    int            `json:"orders"`
	Entities  int            `json:"entities"`
	Alive     []playerReport `json:"alive"`
	FinalHash string         `json:"final_hash"`
	InSync    bool           `json:"in_sync"`
	ElapsedMS int64          `json:"elapsed_ms"`
}

type playerReport struct {
	Player     protocol.PlayerID `json:"player"`
	Units      int               `json:"units"`
	Structures int               `json:"structures"`
	Credits    int32             `json:"credits"`
}

// runDemo plays a complete single-process game of the reference simulation:
// a generated map, one bot per player, every tick applied through a
// dual-simulation verifier, so the demo also proves determinism. (Until the
// relay lockstep mode lands this is the LocalNetwork flavour of a match:
// orders apply on the tick they are given.)
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	players := fs.Int("players", scenario.DefaultPlayers, "players (bots)")
	units := fs.Int("units", scenario.DefaultUnitsPerPlayer, "starting units per player")
	ticks := fs.Uint64("ticks", 900, "ticks to simulate")
	seed := fs.Uint64("seed", 1, "game seed (map, simulation and bots)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *players < 1 || *players > sim.MaxPlayers || *units < 1 {
		return fmt.Errorf("%w: need 1..%d players and at least one unit each", errUsage, sim.MaxPlayers)
	}
	p := scenario.Params{Players: *players, UnitsPerPlayer: *units, Seed: *seed}.WithDefaults()
	md, cfg, err := scenario.Generate(p)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	v, err := sim.NewDualSimVerifier(md, cfg, *seed)
	if err != nil {
		return err
	}
	team := bot.NewTeam(md.Players, *seed)
	progress := !*asJSON && isTerminal(stdout)
	r := demoReport{Players: p.Players, Seed: *seed, MapSize: p.MapSize}
	start := time.Now()
	var orders []protocol.TimestampedOrder
	var tickErr error
	for v.Primary().Tick() < *ticks {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := v.Primary()
		orders = team.Orders(s, orders[:0])
		r.Orders += len(orders)
		if tickErr = v.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: orders}); tickErr != nil {
			break
		}
		if progress && (s.Tick()%15 == 0 || s.Tick() == *ticks) {
			fmt.Fprintf(stdout, "\rtick %d/%d  entities %d  hash %016x  in sync", s.Tick(), *ticks, len(s.Entities()), s.StateHash())
		}
	}
	if progress {
		fmt.Fprintln(stdout)
	}
	s := v.Primary()
	r.Ticks, r.ElapsedMS, r.InSync = s.Tick(), time.Since(start).Milliseconds(), v.InSync()
	r.Entities, r.FinalHash = len(s.Entities()), fmt.Sprintf("%016x", s.StateHash())
	r.Alive = make([]playerReport, p.Players)
	for i := range r.Alive {
		id := protocol.PlayerID(i + 1)
		r.Alive[i] = playerReport{Player: id, Credits: s.Credits(id)}
	}
	for _, e := range s.Entities() {
		if e.Owner == sim.Neutral {
			continue
		}
		switch e.Category() {
		case sim.CategoryUnit:
			r.Alive[e.Owner-1].Units++
		case sim.CategoryStructure:
			r.Alive[e.Owner-1].Structures++
		}
	}
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(r); err != nil {
			return err
		}
	} else {
		printDemo(stdout, &r)
	}
	return tickErr
}

func printDemo(w io.Writer, r *demoReport) {
	fmt.Fprintf(w, "tickwire demo: %d bots, %d ticks on a %dx%d map (seed %d), %d orders, %d ms\n",
		r.Players, r.Ticks, r.MapSize, r.MapSize, r.Seed, r.Orders, r.ElapsedMS)
	for _, p := range r.Alive {
		fmt.Fprintf(w, "  player %d: %3d units, %2d structures, %5d credits\n", p.Player, p.Units, p.Structures, p.Credits)
	}
	verdict := "yes: two simulations agreed on every tick"
	if !r.InSync {
		verdict = "NO: the simulations diverged"
	}
	fmt.Fprintf(w, "final state hash %s over %d entities; in sync: %s\n", r.FinalHash, r.Entities, verdict)
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
