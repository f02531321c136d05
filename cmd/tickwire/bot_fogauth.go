package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/sim"
)

// fogBotFlags are the options of "tickwire bot --mode fogauth".
type fogBotFlags struct {
	botCommon
	dump      string
	matchType string
	reconnect uint64
	cheat     bool
}

func parseFogBotFlags(args []string, stderr io.Writer) (fogBotFlags, error) {
	var f fogBotFlags
	fs := f.flagSet(botSpec{name: "bot --mode fogauth", server: "relay address, host:port (required)",
		ticks: "ticks each bot plays before it is done (required)"}, stderr)
	fs.StringVar(&f.matchType, "match-type", "", "match type asked for in the join (e.g. tournament, mapped to fog_authoritative by the server)")
	fs.StringVar(&f.dump, "dump", "", "write every StateUpdate received to this file, one JSON object per line")
	fs.BoolVar(&f.spectate, "spectate", false, "join a playing room as --players spectators (default 1) and watch until the match ends")
	fs.Uint64Var(&f.reconnect, "reconnect-after", 0, "test knob: each bot drops its connection after this many ticks and rejoins its seat")
	fs.BoolVar(&f.cheat, "cheat", false, "hostile bots: probe hidden ids, build cells they cannot see and attacks on targets they do not hold, and report what the answers revealed (inferred_hidden_entities, which must be 0)")
	err := f.parse(fs, args, sim.MaxPlayers, func() error {
		switch {
		case f.spectate && f.reconnect > 0:
			return fmt.Errorf("%w: --reconnect-after is for players, not --spectate", errUsage)
		case f.cheat && (f.spectate || f.reconnect > 0):
			return fmt.Errorf("%w: --cheat is for players that stay connected (not with --spectate or --reconnect-after)", errUsage)
		}
		return nil
	})
	return f, err
}

// runFogBot plays fog-authoritative bot clients against a relay server.
func runFogBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFogBotFlags(args, stderr)
	if err != nil {
		return err
	}
	dial, err := f.dialer(lanes.TransportConfig()) // every connection to a tickwire server has the relay's lanes
	if err != nil {
		return err
	}
	r, err := runFogBots(ctx, fogRun{players: f.players, ticks: f.ticks, room: f.room, size: f.roomSize, dial: dial, dump: f.dump, matchType: f.matchType, settle: time.Minute,
		spectate: f.spectate, reconnectAfter: f.reconnect, cheat: f.cheat})
	if err != nil {
		return err
	}
	return printReport(stdout, &r, f.json, func(w io.Writer) {
		if f.spectate {
			fmt.Fprintf(w, "tickwire bot --mode fogauth --spectate: %d spectators of room %q, server %s\n", f.players, f.room, f.server)
			return
		}
		cheat := ""
		if f.cheat {
			cheat = " --cheat"
		}
		fmt.Fprintf(w, "tickwire bot --mode fogauth%s: %d bots in room %q of %d, %d ticks, server %s\n", cheat, f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}
