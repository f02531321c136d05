package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// helpEntry is a command's help page beyond its summary: what it does in
// one paragraph, copy-paste examples, and the argument prefixes whose
// flag sets the page lists (each --mode of bot and demo, each benchmark
// of bench); none: the command's own flags.
type helpEntry struct {
	about    string
	examples []string
	variants [][]string
	// hidden are prefixes of flags the page leaves out (netsim's
	// per-direction copies of each impairment flag).
	hidden []string
}

// helpEntries are the help pages, by command. A command added to
// commands adds its entry here (TestEveryCommandHasHelp checks).
func helpEntries() map[string]helpEntry {
	var modeVariants [][]string
	for _, m := range modes() {
		modeVariants = append(modeVariants, []string{"--mode", m.name()})
	}
	var benchVariants [][]string
	for _, n := range benchmarkNames() {
		benchVariants = append(benchVariants, []string{n})
	}
	serve := helpEntry{
		about: "Hosts rooms of every network model on one UDP port: relay lockstep, fog-of-war authoritative, " +
			"client prediction, majority-hash state sync and the echo example. A client's join names a room; the first join " +
			"creates it with the network model the client (or the room's match type) asks for. Connections are encrypted and " +
			"the server's public key is logged at start for clients to pin (--server-key), unless --insecure. --admin serves " +
			"/healthz, /readyz, /metrics, the admin API and the dashboard; --config reads server_config.toml (flags override " +
			"it) and --check-config checks it and exits. --json prints the startup line (bound addresses, public key) as one " +
			"JSON object on standard output. SIGTERM drains: running matches may finish for --drain-timeout.",
		examples: []string{
			"tickwire serve --listen 127.0.0.1:7777 --admin 127.0.0.1:7778",
			"tickwire serve --config server_config.toml --check-config",
			"tickwire serve --listen :7777 --admin 127.0.0.1:7778 --db tickwire.db --key relay.key --tps 30",
		},
	}
	return map[string]helpEntry{
		"demo": {
			about: "Plays a whole match in one process: a tickwire server on a loopback UDP socket and one bot client per " +
				"player, each client's socket impaired by netsim (latency, jitter, loss). --mode picks the network model " +
				"(lockstep by default); each mode prints its summary (--json: one object) and exits 1 when the match failed " +
				"its check (clients not in sync, a secret leaked, parity lost). The flags below are shared by every mode, " +
				"then each mode's own.",
			examples: []string{
				"tickwire demo --players 4 --ticks 900 --latency 40ms --loss 0.05",
				"tickwire demo --mode fogauth --players 2 --json",
				"tickwire demo --mode predict --players 8 --dashboard 127.0.0.1:7778",
			},
			variants: modeVariants,
		},
		"bot": {
			about: "Runs bot clients in this process against a running server (tickwire serve): each dials --server over UDP, " +
				"joins --room and plays as a client would, from what it received. --mode picks the network model (lockstep " +
				"by default). The summary table (--json: one object) is printed only when a match was played; a server that " +
				"cannot be reached or refuses the join is one line naming the cause, exit status 3. The flags below are " +
				"shared by every mode, then each mode's own.",
			examples: []string{
				"tickwire bot --server 127.0.0.1:7777 --room r1 --players 4 --ticks 900",
				"tickwire bot --mode fogauth --server 127.0.0.1:7777 --server-key HEX --room r2 --players 2 --ticks 300 --json",
				"tickwire bot --join-code TICK-ABCD --tracker https://tracker.example.net --players 1 --ticks 900",
			},
			variants: modeVariants,
		},
		"bench": {
			about: "Measures the library and prints its figures (--json: one object): codec sizes and speed, the " +
				"simulation's tick cost, the transport under the netsim workloads, the relay's capacity ramp and bytes, and " +
				"the fog-authoritative server's per-tick cost. Progress goes to standard error when it is a terminal.",
			examples: []string{
				"tickwire bench codec --json",
				"tickwire bench relay --games 500 --duration 2s",
				"tickwire bench transport --workload W1,W2 --duration 2s",
			},
			variants: benchVariants,
		},
		"serve": serve,
		"relay": {about: "The old name of serve, kept as an alias. " + serve.about, examples: serve.examples},
		"netsim": {
			about: "A UDP proxy that impairs traffic. Clients send to --listen; for each client address the proxy opens its " +
				"own socket towards --upstream (so the server sees one source per client) and relays both ways through seeded " +
				"impairment: \"up\" is client->server, \"down\" is server->client. Each impairment flag NAME applies to both " +
				"directions; --up-NAME and --down-NAME override it for one direction, whatever the order (--loss 0.05 " +
				"--down-loss 0 loses only client->server packets). Probabilities are per packet in [0, 1]; --bandwidth takes " +
				"10mbit, 500kbit, 64kB or bare bytes per second.",
			examples: []string{
				"tickwire netsim --listen :7000 --upstream 127.0.0.1:7777 --latency 40ms --jitter 10ms --loss 0.05",
				"tickwire netsim --listen :7000 --upstream 127.0.0.1:7777 --bandwidth 10mbit --up-loss 0.1 --seed 2",
			},
			hidden: []string{"up-", "down-"},
		},
		"matches": {
			about: "Reads the match database a server keeps with --db: the newest matches, one match's result, or a " +
				"result file checked against the server's signature (exit 1 when the check fails).",
			examples: []string{
				"tickwire matches list --db tickwire.db",
				"tickwire matches show 12 --db tickwire.db --json",
				"tickwire matches verify result.json --key HEX",
			},
			variants: [][]string{{"list"}},
		},
		"tracker": {
			about: "Serves the tracking server's HTTP API: servers of any network model publish their open rooms (serve " +
				"--tracker URL), players browse them and resolve join codes (bot --join-code CODE --tracker URL). Listings " +
				"live --ttl without a heartbeat; several trackers share one directory in Redis.",
			examples: []string{
				"tickwire tracker --listen 127.0.0.1:7780",
				"tickwire tracker --listen :443 --cert cert.pem --key key.pem --store redis://127.0.0.1:6379/0",
			},
		},
		"desync": {
			about: "Replays a lockstep order log (written by a client at desync debug level 1 or above, " +
				"DIR/player-ID/order_log_{seed}.bin) from the reference game's start and names the first tick whose state " +
				"hash differs from the one logged: exit 1 when the replay diverges (the client's simulation went its own " +
				"way), 0 when every tick matches. The desync reports themselves come from the relay's walk (docs/desync.md).",
			examples: []string{
				"tickwire desync replay player-4/order_log_15078588670625036341.bin",
				"tickwire desync replay order_log.bin --json",
			},
			variants: [][]string{{"replay"}},
		},
		"replay": {
			about: "Reads the signed replay files a server writes with --replay-dir (one per match, every network model): " +
				"info prints the header, players, ticks and final hash; verify checks the Ed25519 signature chain (--key pins " +
				"the server's key) and re-simulates the match, exit 1 naming the first bad tick; play plays it back at " +
				"--speed times the match's own.",
			examples: []string{
				"tickwire replay info replays/20261126T080000Z-cup-42.twrp --json",
				"tickwire replay verify replays/20261126T080000Z-cup-42.twrp --key HEX",
				"tickwire replay play replays/20261126T080000Z-cup-42.twrp --speed 0",
			},
			variants: [][]string{{"info"}},
		},
		"host": {
			about: "Hosts a lockstep match from this machine, behind a home router: registers a join code at the " +
				"rendezvous server, prints the join URI (and, with --qr, a QR code), punches through both NATs to each " +
				"joiner (or falls back to the rendezvous' relay route) and plays with its own bot; joiners run tickwire " +
				"bot --join URI. No port is forwarded on either side (docs/host.md).",
			examples: []string{
				"tickwire host --rendezvous rv.example.net:3478 --players 2 --ticks 600",
				"tickwire host --rendezvous rv.example.net:3478 --ticks 600 --qr --json",
			},
		},
		"rendezvous": {
			about: "Serves join codes for hosts behind home routers (tickwire host): a host registers its public " +
				"address, a joiner resolves the code, and both punch through their NATs at once; when punching fails the " +
				"rendezvous relays their datagrams on a route of its own (--max-relays 0: punching only). Limits per IP " +
				"address with --rate (docs/rendezvous.md).",
			examples: []string{
				"tickwire rendezvous --listen :3478",
				"tickwire rendezvous --listen 0.0.0.0:3478 --public 203.0.113.7 --max-relays 100 --rate 30/min",
			},
		},
		"loadgen": {
			about: "Generates relay load: --games lockstep games of --players light players each (no simulation, one " +
				"order per tick, a constant hash), all sharing --sockets UDP sockets with one goroutine each, against a " +
				"running server, until --duration or an interrupt; the load of bench relay (docs/loadgen.md).",
			examples: []string{
				"tickwire loadgen --server 127.0.0.1:7777 --games 100 --duration 30s",
				"tickwire loadgen --server 127.0.0.1:7777 --games 1000 --players 4 --sockets 4 --cpuprofile load.prof",
			},
		},
		"token": {
			about: "Mints a connect token: the matchmaker's signature admitting one player's key to one room of one server " +
				"(run with --matchmaker-key) until --ttl. --public prints the matchmaker's public key instead, for the " +
				"server's --matchmaker-key.",
			examples: []string{
				"tickwire token --key matchmaker.key --public",
				"tickwire token --key matchmaker.key --server-key HEX --room ranked --player-key bot.key",
			},
		},
		"version": {
			about: "Prints the build: module version, commit and its date from the build information, Go version, and the " +
				"wire versions each network model speaks (the transport's datagram and hello, the secure handshake, and the " +
				"model's own formats).",
			examples: []string{
				"tickwire version",
				"tickwire --version",
				"tickwire version --json",
			},
		},
	}
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h"
}

// printHelp prints command name's help page: its summary, the paragraph,
// every flag with its default (those its variants share first, then each
// variant's own) and the examples.
func printHelp(ctx context.Context, w io.Writer, name string, c command) {
	e := helpEntries()[name]
	fmt.Fprintf(w, "tickwire %s: %s\n", name, c.summary)
	if e.about != "" {
		fmt.Fprintf(w, "\n%s\n", wrapText(e.about, 78))
	}
	variants := e.variants
	if len(variants) == 0 {
		variants = [][]string{nil}
	}
	sets := make([]*flag.FlagSet, len(variants))
	for i, v := range variants {
		sets[i] = flagSetOf(ctx, c, v)
	}
	shared := sharedFlags(sets)
	if len(shared) > 0 {
		fmt.Fprintln(w, "\nflags:")
		printFlags(w, sets[0], func(n string) bool { return slices.Contains(shared, n) }, e.hidden)
	}
	for i, fs := range sets {
		own := func(n string) bool { return !slices.Contains(shared, n) }
		if fs == nil || !hasFlag(fs, own) {
			continue
		}
		fmt.Fprintf(w, "\nflags of tickwire %s %s:\n", name, strings.Join(variants[i], " "))
		printFlags(w, fs, own, e.hidden)
	}
	if len(e.examples) > 0 {
		fmt.Fprintln(w, "\nexamples:")
		for _, ex := range e.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
	}
}

// flagSetOf is the flag set of command c with the arguments prefix: the
// one it reports when asked for help; nil if it takes no flags there.
func flagSetOf(ctx context.Context, c command, prefix []string) *flag.FlagSet {
	err := c.run(ctx, append(slices.Clone(prefix), "--help"), io.Discard, io.Discard)
	var h *helpRequest
	if errors.As(err, &h) {
		return h.flags()
	}
	return nil
}

// sharedFlags are the names of the flags every non-nil set has, with
// the same default and usage.
func sharedFlags(sets []*flag.FlagSet) []string {
	var first *flag.FlagSet
	for _, fs := range sets {
		if fs != nil {
			first = fs
			break
		}
	}
	if first == nil {
		return nil
	}
	var shared []string
	first.VisitAll(func(f *flag.Flag) {
		for _, fs := range sets {
			if fs == nil {
				continue
			}
			if g := fs.Lookup(f.Name); g == nil || g.DefValue != f.DefValue || g.Usage != f.Usage {
				return
			}
		}
		shared = append(shared, f.Name)
	})
	return shared
}

func hasFlag(fs *flag.FlagSet, keep func(string) bool) bool {
	found := false
	fs.VisitAll(func(f *flag.Flag) { found = found || keep(f.Name) })
	return found
}

// printFlags lists fs's flags that keep selects, each with its type, its
// usage and its default.
func printFlags(w io.Writer, fs *flag.FlagSet, keep func(string) bool, hidden []string) {
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f.Name) || slices.ContainsFunc(hidden, func(p string) bool { return strings.HasPrefix(f.Name, p) }) {
			return
		}
		typ, usage := flag.UnquoteUsage(f)
		def := f.DefValue
		if def == "" {
			def = "none"
		}
		head := "  --" + f.Name
		if typ != "" {
			head += " " + typ
		}
		if !strings.Contains(usage, "(default") { // a usage may tell its own default
			usage = fmt.Sprintf("%s (default %s)", usage, def)
		}
		text := wrapText(usage, 72)
		fmt.Fprintf(w, "%s\n      %s\n", head, strings.ReplaceAll(text, "\n", "\n      "))
	})
}

// wrapText breaks s into lines of at most width bytes at spaces.
func wrapText(s string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && line+1+len(word) > width {
			b.WriteByte('\n')
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
