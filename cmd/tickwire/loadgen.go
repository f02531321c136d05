package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/internal/loadgen"
)

// runLoadgen plays "tickwire loadgen": light relay players over shared
// sockets until interrupted (or --duration), then one JSON report.
func runLoadgen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg loadgen.Config
	fs.StringVar(&cfg.Server, "server", "", "relay address, host:port (required)")
	fs.StringVar(&cfg.Room, "room", "load", "room name prefix: game G plays room PREFIX-G")
	fs.IntVar(&cfg.Games, "games", 1, "games to play")
	fs.IntVar(&cfg.Players, "players", 4, "players per game")
	fs.IntVar(&cfg.Sockets, "sockets", 1, "UDP sockets the players share, one goroutine each")
	duration := fs.Duration("duration", 0, "stop after this long (0: when interrupted)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the load generator to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || cfg.Server == "" || cfg.Games < 1 || cfg.Players < 1 || cfg.Players > 255 || cfg.Sockets < 1 || *duration < 0 {
		return fmt.Errorf("%w: loadgen --server ADDR [--room PREFIX] [--games N] [--players N] [--sockets N] [--duration D] [--cpuprofile FILE]", errUsage)
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	rep, err := loadgen.Run(ctx, cfg)
	stop()
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(rep)
}
