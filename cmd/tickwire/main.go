package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand of the binary.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands. It is built on each call so the binary
// keeps no package-level mutable state.
func commands() map[string]command {
	modeList := strings.ReplaceAll(modeNames(modes()), ", ", "|")
	return map[string]command{
		"demo":       {"play a whole match of bots over loopback UDP through netsim, in one process: demo [--mode " + modeList + "]", runDemo},
		"bot":        {"play bot clients against a server: bot [--mode M] --server ADDR --room NAME --players N --ticks T", runBot},
		"bench":      {"measure the library: bench codec|sim|transport|relay [--json]", runBench},
		"serve":      {"host games of every network model (" + modeList + "): serve --listen ADDR --admin ADDR [--tps N] [--config FILE]", runServe},
		"relay":      {"the old name of serve (an alias: same flags, same server)", runServe},
		"netsim":     {"impair UDP traffic: a proxy with latency, jitter, loss, duplication, reordering", runNetsim},
		"matches":    {"read the match database: matches list|show ID|verify FILE [--db FILE] [--json]", runMatches},
		"tracker":    {"serve the tracking server (game browser, join codes): tracker --listen ADDR [--store memory|redis://HOST:PORT/DB]", runTracker},
		"rendezvous": {"serve join codes for hosts behind home routers (hole punching, relay fallback): rendezvous --listen ADDR [--public IP]", runRendezvous},
		"host":       {"host a lockstep match from this machine, joinable by code through NATs: host --rendezvous ADDR [--players N] [--ticks T] [--qr] [--json]", runHost},
		"desync":     {"re-simulate a lockstep order log (debug level 1) and name the first tick that differs: desync replay ORDER_LOG [--json]", runDesync},
		"replay":     {"read replay files: replay info FILE [--json] | verify FILE [--key HEX] | play FILE [--speed 8]", runReplay},
		"loadgen":    {"light relay players over shared sockets, the load of bench relay: loadgen --server ADDR --games N", runLoadgen},
		"token":      {"mint a matchmaker connect token: token --key FILE --server-key HEX --room NAME --player-key HEX|FILE", runToken},
	}
}

// errUsage marks a command-line mistake; main exits with status 2 for it.
var errUsage = errors.New("usage error")

// errHelp reports that -h or --help printed a command's usage; main exits 0.
var errHelp = errors.New("help requested")

// parseFlags parses a subcommand's flags: -h gives errHelp, any other flag
// mistake wraps errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return errHelp
	}
	return fmt.Errorf("%w: %v", errUsage, err)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout, cmds)
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tickwire: unknown command %q\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	if err := c.run(ctx, args[1:], stdout, stderr); err != nil {
		if errors.Is(err, errHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "tickwire %s: %v\n", args[0], err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func usage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: tickwire <command> [flags]")
	fmt.Fprintln(w, "commands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, cmds[n].summary)
	}
}
