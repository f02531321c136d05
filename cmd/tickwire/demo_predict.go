package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// demoPredictFlags are the options of "tickwire demo --mode predict".
type demoPredictFlags struct {
	demoCommon
	local    bool
	arena    int
	interest float64
	play     string
}

func parseDemoPredictFlags(args []string, stderr io.Writer) (demoPredictFlags, error) {
	var f demoPredictFlags
	fs := f.flagSet(demoSpec{name: "demo --mode predict", tps: 60, latency: 50 * time.Millisecond, loss: 0.02,
		ticks: "ticks each bot predicts", seed: "seed of the network impairment", json: "print one JSON object"}, stderr)
	fs.BoolVar(&f.local, "local", false, "one player against the room in this process, through the loopback layer (no sockets)")
	fs.IntVar(&f.arena, "arena", 0, "side of the arena in units (default: 48, larger beyond 16 players to keep the density)")
	fs.StringVar(&f.play, "play", "", "serve the playable page on this HTTP address (e.g. 127.0.0.1:8080) and keep serving: each visitor plays against --players bots")
	fs.Float64Var(&f.interest, "interest", 24, "interest radius in units: each bot receives the entities near it, on a line of fire to it and its own (0: every entity)")
	err := f.parse(fs, args, 255, func() error {
		if f.local {
			f.players = 1
		}
		switch {
		case f.arena < 0 || f.arena > 4096:
			return fmt.Errorf("%w: --arena must be 0..4096", errUsage)
		case f.play != "" && f.local:
			return fmt.Errorf("%w: --play needs the server, not --local", errUsage)
		case f.interest < 0:
			return fmt.Errorf("%w: --interest must be at least 0", errUsage)
		case f.arena == 0:
			f.arena = arenaFor(f.players)
		}
		return nil
	})
	return f, err
}

// arenaFor is the arena side for players: the game's 48 units up to 16
// players, then growing with the square root of the players (the same
// density: 96 units at 64 players), so interest management has a map to
// matter on.
func arenaFor(players int) int {
	if players <= 16 {
		return 48
	}
	return int(math.Round(48 * math.Sqrt(float64(players)/16)))
}

// runDemoPredict plays a prediction room in one process: bots over real
// loopback UDP sockets impaired by netsim against a server hosting the
// prediction model, or with --local one bot through the loopback layer.
// It exits non-zero unless parity holds.
func runDemoPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseDemoPredictFlags(args, stderr)
	if err != nil {
		return err
	}
	var open func(ctx context.Context, i int) (predict.Network, error)
	var model room.Model
	if f.local {
		open = func(ctx context.Context, _ int) (predict.Network, error) {
			return netlayer.Open(ctx, netlayer.Options{Local: true, Server: predict.ServerConfig{TickRate: f.tps},
				NewGame: func() predict.Game { return predictionGame(f.tps, f.arena, f.seed) }})
		}
	} else if f.play != "" {
		return runDemoPlay(ctx, &f, stdout)
	} else {
		model = predictionFile{TickRate: f.tps, MaxRoomSize: f.players, ArenaSize: f.arena, InterestRadius: f.interest}.model()
		d, err := startDemoServer(ctx, &f.demoCommon,
			server.Config{TickRate: f.tps, Models: []room.Model{model}, DefaultModel: room.Prediction})
		if err != nil {
			return err
		}
		defer d.stop()
		open = openPredict("demo", f.players, d.dial)
	}
	start := time.Now()
	r := playPredict(ctx, f.players, f.ticks, f.arena, f.local, open)
	if model.Metrics != nil && f.interest > 0 {
		r.Interest = interestFigures(model.Metrics(), f.interest, f.arena, f.players, time.Since(start))
	}
	return printReport(stdout, &r, f.json, func(w io.Writer) {
		if f.local {
			fmt.Fprintf(w, "tickwire demo --mode predict --local: 1 bot, %d ticks at %d tps, loopback layer\n", f.ticks, f.tps)
			return
		}
		fmt.Fprintf(w, "tickwire demo --mode predict: %d bots, %d ticks at %d tps, %s\n", f.players, f.ticks, f.tps, f.impairment())
	})
}
