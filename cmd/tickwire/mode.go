package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tickwire/tickwire/server/room"
)

// mode is one network model as the binary plays and hosts it: "demo
// --mode NAME", "bot --mode NAME" and the rooms "tickwire serve" hosts.
// Each mode is one file (mode_NAME.go) implementing it; modes lists them.
// A new network model is its packages (core, server model, client and
// bot) plus that one file and its line in modes.
type mode interface {
	// name is the --mode word of demo and bot ("lockstep", "fogauth", …).
	name() string
	// modelName is the network model's name on the wire and in the
	// server's configuration (room.Lockstep, room.FogAuthoritative, …).
	modelName() string
	// settings is the mode's table of the server configuration file,
	// [relay.KEY], and the value it decodes into; "" and nil for a mode
	// without settings. serve decodes the table before serverModels.
	settings() (key string, table modeSettings)
	// serverModels are the room models serve hosts for the mode, from
	// the server's options and the mode's settings (lockstep's room
	// model too: the server hosts no model by itself). An error names
	// the bad setting.
	serverModels(h hostOptions) ([]room.Model, error)
	// demo plays "tickwire demo --mode NAME" with args: a server in this
	// process and its bots over loopback UDP, then the summary.
	demo(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// bot plays "tickwire bot --mode NAME" with args: bots against a
	// remote server, then the summary.
	bot(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// modeSettings is a mode's table of the server configuration file.
type modeSettings interface {
	// check reports the first bad value, naming its key.
	check() error
}

// hostOptions is what serve tells a mode about the server it is hosted
// in.
type hostOptions struct {
	// tickRate is the server's tick rate (--tps).
	tickRate int
	// maxRoomSize bounds a lockstep room's players (--max-room-size).
	maxRoomSize int
	// debugLevel, desyncDir and matchDebugLevels are lockstep rooms'
	// desync debug level, report directory and levels by match type
	// (--debug-level, --desync-dir, relay.match_types.NAME.debug_level).
	debugLevel       uint8
	desyncDir        string
	matchDebugLevels map[string]uint8
	// replays records the matches (--replay-dir).
	replays replayOptions
}

// modes lists the network models of demo, bot and serve; the first is
// the default --mode. It is built on each call, so a mode's settings are
// its caller's.
func modes() []mode {
	return []mode{
		&lockstepMode{},
		&fogMode{},
		&predictMode{},
		statesyncMode{},
		echoMode{},
	}
}

// modeNames are the --mode words, for usage and errors.
func modeNames(ms []mode) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.name()
	}
	return strings.Join(names, ", ")
}

// hostedModels are the network models serve hosts.
func hostedModels() []string {
	var names []string
	for _, m := range modes() {
		names = append(names, m.modelName())
	}
	return names
}

// runBot plays the bots of the --mode in args (lockstep by default).
func runBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	m, rest, err := pickMode(args)
	if err != nil {
		return err
	}
	return m.bot(ctx, rest, stdout, stderr)
}

// runDemo plays the demo of the --mode in args (lockstep by default).
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	m, rest, err := pickMode(args)
	if err != nil {
		return err
	}
	return m.demo(ctx, rest, stdout, stderr)
}

// pickMode finds the --mode in args (the first of modes if none) and
// returns it with the other arguments.
func pickMode(args []string) (mode, []string, error) {
	name, rest, err := splitMode(args)
	if err != nil {
		return nil, nil, err
	}
	ms := modes()
	if name == "" {
		return ms[0], rest, nil
	}
	for _, m := range ms {
		if m.name() == name {
			return m, rest, nil
		}
	}
	msg := fmt.Sprintf("unknown --mode %q (%s)", name, modeNames(ms))
	if s := closest(name, strings.Split(modeNames(ms), ", ")); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return nil, nil, fmt.Errorf("%w: %s", errUsage, msg)
}

// splitMode takes a --mode flag (--mode X or --mode=X) out of args, for
// subcommands that play several network models; a --mode without its
// value is a usage error.
func splitMode(args []string) (mode string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--mode" || a == "-mode":
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
				return "", nil, fmt.Errorf("%w: --mode needs a value (%s)", errUsage, modeNames(modes()))
			}
			mode = args[i+1]
			i++
			continue
		case strings.HasPrefix(a, "--mode=") || strings.HasPrefix(a, "-mode="):
			if _, mode, _ = strings.Cut(a, "="); mode == "" {
				return "", nil, fmt.Errorf("%w: --mode needs a value (%s)", errUsage, modeNames(modes()))
			}
			continue
		}
		rest = append(rest, a)
	}
	return mode, rest, nil
}
