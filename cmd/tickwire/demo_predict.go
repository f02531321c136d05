package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// demoPredictFlags are the options of "tickwire demo --mode predict".
type demoPredictFlags struct {
	demoCommon
	local bool
}

func parseDemoPredictFlags(args []string, stderr io.Writer) (demoPredictFlags, error) {
	var f demoPredictFlags
	fs := f.flagSet(demoSpec{name: "demo --mode predict", tps: 60, latency: 50 * time.Millisecond, loss: 0.02,
		ticks: "ticks each bot predicts", seed: "seed of the network impairment", json: "print one JSON object"}, stderr)
	fs.BoolVar(&f.local, "local", false, "one player against the room in this process, through the loopback layer (no sockets)")
	err := f.parse(fs, args, 255, func() error {
		if f.local {
			f.players = 1
		}
		return nil
	})
	return f, err
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
	if f.local {
		open = func(ctx context.Context, _ int) (predict.Network, error) {
			return netlayer.Open(ctx, netlayer.Options{Local: true, Server: predict.ServerConfig{TickRate: f.tps},
				NewGame: func() predict.Game { return predictionGame(f.tps, f.seed) }})
		}
	} else {
		d, err := startDemoServer(ctx, &f.demoCommon,
			server.Config{TickRate: f.tps, Models: []room.Model{predictionModel(f.tps)}, DefaultModel: room.Prediction})
		if err != nil {
			return err
		}
		defer d.stop()
		open = openPredict("demo", f.players, d.dial)
	}
	r := playPredict(ctx, f.players, f.ticks, f.tps, f.local, open)
	return printReport(stdout, &r, f.json, func(w io.Writer) {
		if f.local {
			fmt.Fprintf(w, "tickwire demo --mode predict --local: 1 bot, %d ticks at %d tps, loopback layer\n", f.ticks, f.tps)
			return
		}
		fmt.Fprintf(w, "tickwire demo --mode predict: %d bots, %d ticks at %d tps, %s\n", f.players, f.ticks, f.tps, f.impairment())
	})
}
