package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/internal/botrun"
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/relay/server"
	"github.com/tickwire/tickwire/transport"
)

// errNotInSync makes bot and demo exit non-zero after printing a summary
// whose clients disagree, stalled or saw a desync.
var errNotInSync = errors.New("the clients are not in sync")

// botFlags are the options of "tickwire bot".
type botFlags struct {
	server   string
	room     string
	players  int
	roomSize int
	ticks    uint64
	json     bool
	sec      securityFlags
	// the load generator of "bench relay"
	light bool
	games int
}

func parseBotFlags(args []string, stderr io.Writer) (botFlags, error) {
	var f botFlags
	fs := flag.NewFlagSet("bot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.server, "server", "", "relay address, host:port (required)")
	fs.StringVar(&f.room, "room", "", "room name (required)")
	fs.IntVar(&f.players, "players", 0, "bot clients in this process (required)")
	fs.Uint64Var(&f.ticks, "ticks", 0, "ticks each bot plays (required)")
	fs.IntVar(&f.roomSize, "room-size", 0, "players the room expects (default: --players)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	f.sec.addClient(fs)
	fs.BoolVar(&f.light, "light", false, "load generator: no simulation, one Move order per tick, a constant hash")
	fs.IntVar(&f.games, "games", 1, "with --light: fill this many rooms, ROOM-0, ROOM-1, …, of --players bots each")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.server == "" || f.room == "":
		return f, fmt.Errorf("%w: --server and --room are required", errUsage)
	case f.players < 1 || f.ticks < 1:
		return f, fmt.Errorf("%w: --players and --ticks must be at least 1", errUsage)
	case f.games < 1 || (f.games > 1 && !f.light):
		return f, fmt.Errorf("%w: --games must be at least 1, and only light bots play several games", errUsage)
	}
	if f.roomSize == 0 {
		f.roomSize = f.players
	}
	if f.roomSize < f.players || f.roomSize > 255 {
		return f, fmt.Errorf("%w: --room-size must be between --players and 255", errUsage)
	}
	return f, nil
}

// runBot plays bot clients against a relay: "tickwire bot".
func runBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	args, mode, err := splitMode(args)
	if err != nil {
		return err
	}
	if mode == "statesync" {
		return runStateSyncBot(ctx, args, stdout, stderr)
	}
	f, err := parseBotFlags(args, stderr)
	if err != nil {
		return err
	}
	tcfg := server.TransportConfig()
	if tcfg.Security, err = f.sec.clientConfig(); err != nil {
		return err
	}
	join := func(ctx context.Context, i int) (botrun.Client, error) {
		room := f.room
		if f.games > 1 {
			room = fmt.Sprintf("%s-%d", f.room, i/f.players)
		}
		conn, err := transport.DialUDP(ctx, f.server, tcfg)
		if err != nil {
			return nil, err
		}
		return joinRoom(ctx, conn, room, f.roomSize)
	}
	cfg := botrun.Config{Players: f.players * f.games, RoomSize: f.roomSize, Ticks: f.ticks, Join: join, Light: f.light}
	if f.games > 1 {
		cfg.MaxJoining = 16 // stagger thousands of handshakes
	}
	r, err := botrun.Run(ctx, cfg)
	if err != nil {
		return err
	}
	return printSummary(stdout, &r, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot: %d bots in room %q of %d, %d ticks, relay %s\n", f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}

// joinRoom joins room over conn, which the client (or, on failure,
// JoinRelay) closes.
func joinRoom(ctx context.Context, conn *transport.Conn, room string, roomSize int) (botrun.Client, error) {
	c, err := lockstep.JoinRelay(ctx, conn, room, roomSize, lockstep.RelayClientConfig{})
	if err != nil {
		return nil, err // a nil *RelayClient must not become a non-nil Client
	}
	return c, nil
}

// printSummary prints the report (as JSON with asJSON, else header and a
// table) and returns errNotInSync if the clients disagree.
func printSummary(w io.Writer, r *botrun.Report, asJSON bool, header func(io.Writer)) error {
	if asJSON {
		if err := json.NewEncoder(w).Encode(r); err != nil {
			return err
		}
	} else {
		if header != nil {
			header(w)
		}
		printBotReport(w, r)
	}
	if !r.AllInSync {
		return errNotInSync
	}
	return nil
}

func printBotReport(w io.Writer, r *botrun.Report) {
	fmt.Fprintf(w, "%4s %6s %6s %5s %7s %9s %9s %9s %4s %8s %8s  %s\n", "id", "ticks", "orders", "late", "strikes",
		"rtt p50", "rtt p99", "gap p99", "ra", "up B/s", "down B/s", "final hash")
	for _, p := range r.Players {
		fmt.Fprintf(w, "%4d %6d %6d %5d %7d %7.1fms %7.1fms %7.1fms %4d %8.0f %8.0f  %s\n", p.ID, p.Ticks, p.OrdersSent,
			p.LateOrders, p.Strikes, p.RTTP50MS, p.RTTP99MS, p.TickGapP99MS, p.RunAhead, p.BytesUpPerS, p.BytesDownPerS, p.FinalHash)
		if p.Desyncs > 0 {
			fmt.Fprintf(w, "     desyncs reported: %d\n", p.Desyncs)
		}
		if p.Error != "" {
			fmt.Fprintf(w, "     stopped: %s\n", p.Error)
		}
	}
	verdict := "yes: every final hash matches, no desync"
	if !r.AllInSync {
		verdict = "NO"
	}
	fmt.Fprintf(w, "in sync: %s\n", verdict)
}
