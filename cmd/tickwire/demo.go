package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tickwire/tickwire/internal/botrun"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim"
)

// demoFlags are the options of "tickwire demo".
type demoFlags struct {
	demoCommon
}

func parseDemoFlags(args []string, stderr io.Writer) (demoFlags, error) {
	var f demoFlags
	fs := f.flagSet(demoSpec{name: "demo", tps: 30, latency: 40 * time.Millisecond, loss: 0.05,
		ticks: "ticks to play", seed: "seed of the network impairment", json: "print one JSON object (the bot --json summary)"}, stderr)
	err := f.parse(fs, args, sim.MaxPlayers, nil)
	return f, err
}

// runLockstepDemo plays a whole relay match in one process over real
// loopback UDP sockets: a relay server and one bot client per player, each
// client's socket impaired by netsim. It prints the bot summary and fails
// unless every client ends with the same state hash and no desync.
func runLockstepDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	var progress func(botrun.Progress)
	if !f.json && isTerminal(stdout) {
		progress = func(p botrun.Progress) {
			if p.Playing < f.players {
				fmt.Fprintf(stdout, "\rjoining and calibrating: %d/%d bots playing   ", p.Playing, f.players)
				return
			}
			fmt.Fprintf(stdout, "\rtick %d/%d  late orders %d  rtt %v  desyncs %d          ",
				p.Tick, p.Ticks, p.LateOrders, p.RTT.Round(time.Millisecond), p.Desyncs)
		}
	}
	r, st, err := playDemo(ctx, f, progress)
	if err != nil {
		return err
	}
	if progress != nil {
		fmt.Fprintln(stdout)
	}
	return printReport(stdout, lockstepReport{&r}, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo: %d bots, %d ticks at %d tps, %s\n", f.players, f.ticks, f.tps, f.impairment())
		fmt.Fprintf(w, "relay: %d late orders, %d strikes, %d QoS adjustments, %d desyncs, %d bytes in, %d bytes out\n",
			st.lockstep.LateOrders, st.lockstep.Strikes, st.lockstep.QosAdjustments, st.lockstep.Desyncs, st.BytesIn, st.BytesOut)
	})
}

// playDemo runs the demo's match: a relay server on a loopback socket and
// f.players bots whose sockets netsim impairs. It returns the bots'
// summary and the relay's figures at the end.
func playDemo(ctx context.Context, f demoFlags, progress func(botrun.Progress)) (botrun.Report, relayFigures, error) {
	ls := lockstepserver.New(lockstepserver.Config{})
	d, err := startDemoServer(ctx, &f.demoCommon, server.Config{TickRate: f.tps, Models: []room.Model{ls.Model()}})
	if err != nil {
		return botrun.Report{}, relayFigures{}, err
	}
	defer d.stop()
	join := func(ctx context.Context, i int) (botrun.Client, error) {
		conn, err := d.dial(ctx, i)
		if err != nil {
			return nil, err
		}
		return joinRoom(ctx, conn, "demo", f.players)
	}
	r, err := botrun.Run(ctx, botrun.Config{Players: f.players, Ticks: f.ticks, Join: join, OnProgress: progress})
	return r, relayFigures{d.srv.Stats(), ls.Stats()}, err
}

// relayFigures are a lockstep relay's figures: the server's and its
// lockstep model's.
type relayFigures struct {
	server.Stats
	lockstep lockstepserver.Stats
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
