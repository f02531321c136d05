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

// command is one subcommand of the binary: a line of the command list
// and its run function. Its help page (tickwire help NAME) is its entry
// in helpEntries.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the table of subcommands: the command list, "tickwire help"
// and the dispatch all read it. Register a command with one line here and
// its help entry in helpEntries. The table is built on each call so the
// binary keeps no package-level mutable state.
func commands() map[string]command {
	modeList := strings.ReplaceAll(modeNames(modes()), ", ", "|")
	return map[string]command{
		"demo":       {"play a whole match of bots and a server in one process over loopback UDP, impaired by netsim, for any network model (--mode " + modeList + ")", runDemo},
		"bot":        {"play bot clients of any network model (--mode " + modeList + ") against a running server", runBot},
		"bench":      {"measure the library: bench " + strings.Join(benchmarkNames(), "|") + " [--json]", runBench},
		"serve":      {"host rooms of every network model (" + modeList + ") on one UDP port, with admin endpoints and a dashboard", runServe},
		"relay":      {"the old name of serve (an alias: same flags, same server, every network model)", runServe},
		"netsim":     {"impair UDP traffic: a proxy with latency, jitter, loss, duplication, reordering", runNetsim},
		"matches":    {"read the match database of serve --db: matches list|show ID|verify FILE [--json]", runMatches},
		"tracker":    {"serve the tracking server: game browser and join codes for servers of any network model", runTracker},
		"rendezvous": {"serve join codes for hosts behind home routers (hole punching, relay fallback): rendezvous --listen ADDR [--public IP]", runRendezvous},
		"host":       {"host a lockstep match from this machine, joinable by code through NATs: host --rendezvous ADDR [--players N] [--ticks T] [--qr] [--json]", runHost},
		"desync":     {"re-simulate a lockstep order log (debug level 1) and name the first tick that differs: desync replay ORDER_LOG [--json]", runDesync},
		"replay":     {"read replay files of any network model: replay info FILE [--json] | verify FILE [--key HEX] | play FILE [--speed 8]", runReplay},
		"loadgen":    {"light relay players over shared sockets, the load of bench relay: loadgen --server ADDR --games N", runLoadgen},
		"token":      {"mint a matchmaker connect token for a room of a server run with --matchmaker-key", runToken},
		"version":    {"print the build (module version, commit, date, Go) and the wire versions each network model speaks", runVersion},
	}
}

// errUsage marks a command-line mistake; main exits with status 2 for it.
var errUsage = errors.New("usage error")

// errHelp reports that -h or --help asked for a command's help; main
// prints it and exits 0. The error is a *helpRequest carrying the flags.
var errHelp = errors.New("help requested")

// helpRequest is errHelp with the flag set that was asked for help, so
// the help page lists its flags.
type helpRequest struct{ fs *flag.FlagSet }

func (*helpRequest) Error() string          { return errHelp.Error() }
func (*helpRequest) Is(target error) bool   { return target == errHelp }
func (h *helpRequest) flags() *flag.FlagSet { return h.fs }

// parseFlags parses a subcommand's flags: -h gives errHelp, any other flag
// mistake wraps errUsage, naming the closest known flag. The flag package
// prints nothing: run tells the mistake, and the help page the flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := missingValue(fs, args); err != nil {
		return err
	}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return &helpRequest{fs}
	}
	return fmt.Errorf("%w: %s", errUsage, flagMistake(fs, err))
}

// flagMistake tells a flag parse error with the flags as they are
// written (--name), suggesting the closest known flag for an unknown one.
func flagMistake(fs *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		msg = "unknown flag --" + name
		if s := closest(name, known); s != "" {
			msg += "; did you mean --" + s + "?"
		}
		return msg
	}
	var value, name string
	if _, e := fmt.Sscanf(msg, "invalid value %q for flag -%s", &value, &name); e == nil {
		name = strings.TrimSuffix(name, ":")
		if f := fs.Lookup(name); f != nil && isDuration(f) {
			return fmt.Sprintf("--%s %s: want %s", name, value, durationUnits)
		}
	}
	msg = strings.Replace(msg, "flag -", "flag --", 1)
	return strings.Replace(msg, "argument: -", "argument: --", 1)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command args name and returns the exit code: 0 success,
// 1 the work failed, 2 a usage or configuration error, 3 a server could
// not be reached or joined (docs/exit-codes.md).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 {
		usage(stdout, cmds)
		return exitOK
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 || args[1] == "help" {
			usage(stdout, cmds)
			return exitOK
		}
		args = []string{args[1], "--help"}
	case "-version", "--version":
		args[0] = "version"
	}
	name := args[0]
	c, ok := cmds[name]
	if !ok {
		msg := fmt.Sprintf("unknown command %q", name)
		if s := closest(name, sortedNames(cmds)); s != "" {
			msg += "; did you mean " + s + "?"
		}
		f := failure{Kind: "usage", Message: msg, Hint: "run `tickwire help` for the commands", code: exitUsage}
		f.report("", wantsJSON(args), stdout, stderr)
		return f.code
	}
	out := &countingWriter{w: stdout}
	err := c.run(ctx, args[1:], out, stderr)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		printHelp(ctx, stdout, name, c)
		return exitOK
	}
	f := explain(name, err)
	// With --json, standard output holds one object: the error's, unless
	// the command printed its own (a summary whose verdict failed).
	f.report(name, wantsJSON(args[1:]) && out.n == 0, stdout, stderr)
	return f.code
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// usage is the command list.
func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: tickwire <command> [flags]")
	fmt.Fprintln(w, "commands:")
	for _, n := range sortedNames(cmds) {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\n`tickwire help COMMAND` (or COMMAND --help) describes a command, its flags and examples; `tickwire version` the build.")
}

// sortedNames are the commands' names in order.
func sortedNames[T any](m map[string]T) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
