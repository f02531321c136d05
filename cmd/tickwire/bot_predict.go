package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// botPredictFlags are the options of "tickwire bot --mode predict".
type botPredictFlags struct {
	botCommon
}

func parseBotPredictFlags(args []string, stderr io.Writer) (botPredictFlags, error) {
	var f botPredictFlags
	fs := f.flagSet(botSpec{name: "bot --mode predict", server: "server address, host:port (required)",
		ticks: "ticks each bot predicts (required)"}, stderr)
	err := f.parse(fs, args, 255, nil)
	return f, err
}

// runBotPredict plays prediction bots against a server:
// "tickwire bot --mode predict".
func runBotPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseBotPredictFlags(args, stderr)
	if err != nil {
		return err
	}
	tcfg, err := (server.Config{Models: []room.Model{predictionModel(0)}}).Transport()
	if err != nil {
		return err
	}
	dial, err := f.dialer(tcfg)
	if err != nil {
		return err
	}
	r := playPredict(ctx, f.players, f.ticks, 0, false, openPredict(f.room, f.roomSize, dial))
	return printReport(stdout, &r, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot --mode predict: %d bots in room %q of %d, %d ticks, server %s\n", f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}
