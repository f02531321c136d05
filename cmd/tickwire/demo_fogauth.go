package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim"
)

// fogDemoFlags are the options of "tickwire demo --mode fogauth".
type fogDemoFlags struct {
	demoCommon
	units int
	kbps  int
}

func parseFogDemoFlags(args []string, stderr io.Writer) (fogDemoFlags, error) {
	var f fogDemoFlags
	fs := f.flagSet(demoSpec{name: "demo --mode fogauth", tps: 30, latency: 40 * time.Millisecond, loss: 0.05,
		ticks: "ticks each bot plays", seed: "seed of the map and of the network impairment", json: "print one JSON object"}, stderr)
	fs.IntVar(&f.units, "units", 50, "starting units per player")
	fs.IntVar(&f.kbps, "kbps", 64, "state budget per client, KiB/s (bandwidth_per_client_kbps)")
	err := f.parse(fs, args, sim.MaxPlayers, func() error {
		if f.units < 1 || f.units > 1000 {
			return fmt.Errorf("%w: --units must be 1..1000", errUsage)
		}
		return nil
	})
	return f, err
}

// runFogDemo plays a fog-authoritative match in one process over real
// loopback UDP sockets: a relay server hosting one fog room, and one bot
// client per player, each client's socket impaired by netsim. It prints
// the summary and fails unless every client ends consistent.
func runFogDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFogDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	var timing struct {
		sync.Mutex
		tick, cost time.Duration
	}
	fog := fogserver.Config{UnitsPerPlayer: f.units, Seed: func() uint64 { return f.seed },
		OnEnd: func(_ string, tickP99, costP99 time.Duration) {
			timing.Lock()
			timing.tick, timing.cost = tickP99, costP99
			timing.Unlock()
		}}
	fog.Room.TickRate, fog.Room.BandwidthPerClientKbps = f.tps, f.kbps
	d, err := startDemoServer(ctx, &f.demoCommon,
		server.Config{TickRate: f.tps, Models: []room.Model{fogserver.Model(fog)}, DefaultModel: room.FogAuthoritative})
	if err != nil {
		return err
	}
	defer d.stop()
	r, err := runFogBots(ctx, fogRun{players: f.players, ticks: f.ticks, room: "demo", size: f.players, dial: d.dial, settle: 30 * time.Second})
	if err != nil {
		return err
	}
	// Players' MatchEnds carry no room timing; the demo's own server tells it.
	timing.Lock()
	r.ServerTickP99MS, r.ServerCostExclSimP99US = float64(timing.tick)/1e6, float64(timing.cost)/1e3
	timing.Unlock()
	return printReport(stdout, &r, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo --mode fogauth: %d bots, %d ticks at %d tps, %d units each, %s\n",
			f.players, f.ticks, f.tps, f.units, f.impairment())
	})
}
