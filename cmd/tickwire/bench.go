package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// benchmark is one "tickwire bench NAME" target.
type benchmark func(ctx context.Context, args []string, stdout, stderr io.Writer) error

func benchmarks() map[string]benchmark {
	return map[string]benchmark{
		"codec":     benchCodec,
		"sim":       benchSim,
		"transport": benchTransport,
		"relay":     benchRelay,
		"serve":     benchServe,
		"fogauth":   benchFogAuth,
	}
}

// benchmarkNames are the benchmarks' names in order.
func benchmarkNames() []string { return sortedNames(benchmarks()) }

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	names := benchmarkNames()
	if len(args) == 0 {
		return fmt.Errorf("%w: tickwire bench %s [--json]", errUsage, strings.Join(names, "|"))
	}
	if isHelpFlag(args[0]) {
		return errHelp
	}
	b, ok := benchmarks()[args[0]]
	if !ok {
		msg := fmt.Sprintf("unknown benchmark %q (have %s)", args[0], strings.Join(names, ", "))
		if s := closest(args[0], names); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return fmt.Errorf("%w: %s", errUsage, msg)
	}
	return b(ctx, args[1:], stdout, stderr)
}
