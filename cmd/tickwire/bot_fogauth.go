package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/relay/lanes"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/transport"
)

// fogBotFlags are the options of "tickwire bot --mode fogauth".
type fogBotFlags struct {
	server    string
	room      string
	players   int
	roomSize  int
	ticks     uint64
	json      bool
	dump      string
	matchType string
	spectate  bool
	reconnect uint64
	sec       securityFlags
}

func parseFogBotFlags(args []string, stderr io.Writer) (fogBotFlags, error) {
	var f fogBotFlags
	fs := flag.NewFlagSet("bot --mode fogauth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.server, "server", "", "relay address, host:port (required)")
	fs.StringVar(&f.room, "room", "", "room name (required)")
	fs.IntVar(&f.players, "players", 0, "bot clients in this process (required)")
	fs.Uint64Var(&f.ticks, "ticks", 0, "ticks each bot plays before it is done (required)")
	fs.IntVar(&f.roomSize, "room-size", 0, "players the room expects (default: --players)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	fs.StringVar(&f.matchType, "match-type", "", "match type asked for in the join (e.g. tournament, mapped to fog_authoritative by the server)")
	fs.StringVar(&f.dump, "dump", "", "write every StateUpdate received to this file, one JSON object per line")
	fs.BoolVar(&f.spectate, "spectate", false, "join a playing room as --players spectators (default 1) and watch until the match ends")
	fs.Uint64Var(&f.reconnect, "reconnect-after", 0, "test knob: each bot drops its connection after this many ticks and rejoins its seat")
	f.sec.addClient(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.server == "" || f.room == "":
		return f, fmt.Errorf("%w: --server and --room are required", errUsage)
	case f.spectate && f.reconnect > 0:
		return f, fmt.Errorf("%w: --reconnect-after is for players, not --spectate", errUsage)
	case f.spectate:
		f.players = max(f.players, 1)
		f.roomSize = max(f.roomSize, f.players)
		return f, nil
	case f.players < 1 || f.ticks < 1:
		return f, fmt.Errorf("%w: --players and --ticks must be at least 1", errUsage)
	}
	if f.roomSize == 0 {
		f.roomSize = f.players
	}
	if f.roomSize < f.players || f.roomSize > sim.MaxPlayers {
		return f, fmt.Errorf("%w: --room-size must be between --players and %d", errUsage, sim.MaxPlayers)
	}
	return f, nil
}

// runFogBot plays fog-authoritative bot clients against a relay server.
func runFogBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFogBotFlags(args, stderr)
	if err != nil {
		return err
	}
	tcfg := lanes.TransportConfig() // every connection to a tickwire server has the relay's lanes
	if tcfg.Security, err = f.sec.clientConfig(); err != nil {
		return err
	}
	dial := func(ctx context.Context, i int) (*transport.Conn, error) {
		return transport.DialUDP(ctx, f.server, tcfg)
	}
	r, err := runFogBots(ctx, fogRun{players: f.players, ticks: f.ticks, room: f.room, size: f.roomSize, dial: dial, dump: f.dump, matchType: f.matchType, settle: time.Minute,
		spectate: f.spectate, reconnectAfter: f.reconnect})
	if err != nil {
		return err
	}
	return printFogSummary(stdout, &r, f.json, func(w io.Writer) {
		if f.spectate {
			fmt.Fprintf(w, "tickwire bot --mode fogauth --spectate: %d spectators of room %q, server %s\n", f.players, f.room, f.server)
			return
		}
		fmt.Fprintf(w, "tickwire bot --mode fogauth: %d bots in room %q of %d, %d ticks, server %s\n", f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}
