package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/host"
)

// ssBotFlags are the options of "tickwire bot --mode statesync".
type ssBotFlags struct {
	botCommon
	ssFaults
	seed uint64
}

func parseStateSyncBotFlags(args []string, stderr io.Writer) (ssBotFlags, error) {
	var f ssBotFlags
	fs := f.flagSet(botSpec{name: "bot --mode statesync", server: "server address, host:port (required)",
		ticks: "frames each bot plays (required)"}, stderr)
	f.ssFaults.add(fs, 0, 0)
	fs.Uint64Var(&f.seed, "seed", 1, ssSeedUsage)
	err := f.parse(fs, args, host.Model(host.Config{}).MaxRoomSize, func() error { return f.ssFaults.check(f.players, f.ticks) })
	return f, err
}

// runStateSyncBot plays bot clients in a state-sync room of a remote
// server. Its summary is the bots' view: the figures only the server
// knows (tiers, server CPU) are zero, and desyncs are those the bots
// were told of.
func runStateSyncBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseStateSyncBotFlags(args, stderr)
	if err != nil {
		return err
	}
	tcfg, err := (server.Config{Models: []room.Model{host.Model(host.Config{})}}).Transport()
	if err != nil {
		return err
	}
	dial, err := f.dialer(tcfg)
	if err != nil {
		return err
	}
	results := playStateSync(ctx, f.players, f.roomSize, f.room, uint32(f.ticks), f.plans(f.players, f.ticks, f.seed), dial)
	reportStuck(stderr, results)
	r := ssSummary(f.players, f.ticks, results, nil)
	r.injected = f.corrupt
	return printReport(stdout, &r, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot --mode statesync: %d bots in room %q of %d, %d frames, server %s\n",
			f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}
