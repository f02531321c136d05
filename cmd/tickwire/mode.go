package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// subcommand is how a subcommand runs (command.run).
type subcommand = func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// networkMode is one network model's pair of subcommands, "demo --mode
// NAME" and "bot --mode NAME". A new model writes these two (on the
// helpers of demokit.go) and adds itself to networkModes.
type networkMode struct {
	name      string
	demo, bot subcommand
}

// networkModes lists the modes of demo and bot; the first is the default.
func networkModes() []networkMode {
	return []networkMode{
		{"lockstep", runLockstepDemo, runLockstepBot},
		{"fogauth", runFogDemo, runFogBot},
		{"predict", runDemoPredict, runBotPredict},
		{"statesync", runStateSyncDemo, runStateSyncBot},
	}
}

// runBot plays the bots of the --mode in args (lockstep by default).
func runBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runMode(ctx, args, stdout, stderr, func(m networkMode) subcommand { return m.bot })
}

// runDemo plays the demo of the --mode in args (lockstep by default).
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runMode(ctx, args, stdout, stderr, func(m networkMode) subcommand { return m.demo })
}

// runMode runs the subcommand pick chooses of the --mode in args (the
// first of networkModes if none), with the other arguments.
func runMode(ctx context.Context, args []string, stdout, stderr io.Writer, pick func(networkMode) subcommand) error {
	mode, rest := splitMode(args)
	modes := networkModes()
	if mode == "" {
		mode = modes[0].name
	}
	names := make([]string, len(modes))
	for i, m := range modes {
		if m.name == mode {
			return pick(m)(ctx, rest, stdout, stderr)
		}
		names[i] = m.name
	}
	return fmt.Errorf("%w: unknown --mode %q (%s)", errUsage, mode, strings.Join(names, ", "))
}

// splitMode takes a --mode flag (--mode X or --mode=X) out of args, for
// subcommands that play several network models.
func splitMode(args []string) (mode string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--mode" || a == "-mode":
			if i+1 < len(args) {
				mode = args[i+1]
				i++
			}
			continue
		case strings.HasPrefix(a, "--mode=") || strings.HasPrefix(a, "-mode="):
			_, mode, _ = strings.Cut(a, "=")
			continue
		}
		rest = append(rest, a)
	}
	return mode, rest
}
