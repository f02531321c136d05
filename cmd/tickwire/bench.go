package main

import (
	"context"
	"fmt"
	"io"
	"sort"
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

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	bs := benchmarks()
	names := make([]string, 0, len(bs))
	for n := range bs {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 {
		return fmt.Errorf("%w: tickwire bench %s [--json]", errUsage, strings.Join(names, "|"))
	}
	b, ok := bs[args[0]]
	if !ok {
		return fmt.Errorf("%w: unknown benchmark %q (have %s)", errUsage, args[0], strings.Join(names, ", "))
	}
	return b(ctx, args[1:], stdout, stderr)
}
