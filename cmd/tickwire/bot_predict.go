package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/relay/server"
	"github.com/tickwire/tickwire/relay/server/room"
	"github.com/tickwire/tickwire/transport"
)

// runBotPredict plays prediction bots against a server:
// "tickwire bot --mode predict".
func runBotPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		addr, roomName string
		players, size  int
		ticks          uint64
		tps            int
		asJSON         bool
		sec            securityFlags
	)
	fs := flag.NewFlagSet("bot --mode predict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&addr, "server", "", "server address, host:port (required)")
	fs.StringVar(&roomName, "room", "", "room name (required)")
	fs.IntVar(&players, "players", 0, "bot clients in this process (required)")
	fs.Uint64Var(&ticks, "ticks", 0, "ticks each bot predicts (required)")
	fs.IntVar(&size, "room-size", 0, "players the room expects (default: --players)")
	fs.IntVar(&tps, "tps", 0, "the room's tick rate, for the game's rules (default: the one the server reports)")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object")
	sec.addClient(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case addr == "" || roomName == "":
		return fmt.Errorf("%w: --server and --room are required", errUsage)
	case players < 1 || ticks < 1:
		return fmt.Errorf("%w: --players and --ticks must be at least 1", errUsage)
	}
	if size == 0 {
		size = players
	}
	if size < players || size > 255 {
		return fmt.Errorf("%w: --room-size must be between --players and 255", errUsage)
	}
	tcfg, err := (server.Config{Models: []room.Model{predictionModel(0)}}).Transport()
	if err != nil {
		return err
	}
	if tcfg.Security, err = sec.clientConfig(); err != nil {
		return err
	}
	open := func(ctx context.Context, _ int) (predict.Network, error) {
		return netlayer.Open(ctx, netlayer.Options{Room: roomName, RoomSize: size,
			Dial: func(ctx context.Context) (*transport.Conn, error) { return transport.DialUDP(ctx, addr, tcfg) }})
	}
	r := playPredict(ctx, players, ticks, tps, false, open)
	return printPredictReport(stdout, &r, asJSON, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot --mode predict: %d bots in room %q of %d, %d ticks, server %s\n", players, roomName, size, ticks, addr)
	})
}
