package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/relay/lanes"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/transport"
)

// ssBotFlags are the options of "tickwire bot --mode statesync".
type ssBotFlags struct {
	server   string
	room     string
	players  int
	roomSize int
	ticks    uint64
	ssFaults
	json bool
	sec  securityFlags
}

func parseStateSyncBotFlags(args []string, stderr io.Writer) (ssBotFlags, error) {
	var f ssBotFlags
	fs := flag.NewFlagSet("bot --mode statesync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.server, "server", "", "server address, host:port (required)")
	fs.StringVar(&f.room, "room", "", "room name (required)")
	fs.IntVar(&f.players, "players", 0, "bot clients in this process (required)")
	fs.Uint64Var(&f.ticks, "ticks", 0, "frames each bot plays (required)")
	fs.IntVar(&f.roomSize, "room-size", 0, "players the room expects, from every process (default: --players)")
	f.ssFaults.add(fs, 0, 0)
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	f.sec.addClient(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if f.roomSize == 0 {
		f.roomSize = f.players
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.server == "" || f.room == "":
		return f, fmt.Errorf("%w: --server and --room are required", errUsage)
	case f.players < 1 || f.ticks < 1 || f.ticks > 1<<31:
		return f, fmt.Errorf("%w: --players and --ticks must be at least 1", errUsage)
	case f.roomSize < f.players || f.roomSize > host.Model(host.Config{}).MaxRoomSize:
		return f, fmt.Errorf("%w: --room-size must be between --players and 255", errUsage)
	}
	return f, f.ssFaults.check(f.players, f.ticks)
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
	tcfg := lanes.TransportConfig()
	if tcfg.Security, err = f.sec.clientConfig(); err != nil {
		return err
	}
	dial := func(ctx context.Context, _ int) (*transport.Conn, error) {
		return transport.DialUDP(ctx, f.server, tcfg)
	}
	plans := f.plans(f.players, f.ticks)
	results := playStateSync(ctx, f.players, f.roomSize, f.room, uint32(f.ticks), plans, dial)
	reportStuck(stderr, results)
	r := ssSummary(f.players, f.ticks, results, nil)
	return printStateSync(stdout, &r, f.json, r.DesyncsRecovered == r.DesyncsDetected && r.DesyncsRecovered >= f.corrupt, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot --mode statesync: %d bots in room %q of %d, %d frames, server %s\n",
			f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}
