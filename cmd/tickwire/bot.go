package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/internal/botrun"
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// errNotInSync makes bot and demo exit non-zero after printing a summary
// whose clients disagree, stalled or saw a desync.
var errNotInSync = errors.New("the clients are not in sync")

// botFlags are the options of "tickwire bot".
type botFlags struct {
	botCommon
	// the load generator of "bench relay"
	light bool
	games int
}

func parseBotFlags(args []string, stderr io.Writer) (botFlags, error) {
	var f botFlags
	fs := f.flagSet(botSpec{name: "bot", server: "relay address, host:port (required)", ticks: "ticks each bot plays (required)"}, stderr)
	fs.BoolVar(&f.light, "light", false, "load generator: no simulation, one Move order per tick, a constant hash")
	fs.IntVar(&f.games, "games", 1, "with --light: fill this many rooms, ROOM-0, ROOM-1, …, of --players bots each")
	err := f.parse(fs, args, 255, func() error {
		if f.games < 1 || (f.games > 1 && !f.light) {
			return fmt.Errorf("%w: --games must be at least 1, and only light bots play several games", errUsage)
		}
		return nil
	})
	return f, err
}

// runLockstepBot plays bot clients against a relay: "tickwire bot".
func runLockstepBot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseBotFlags(args, stderr)
	if err != nil {
		return err
	}
	dial, err := f.dialer(lanes.TransportConfig())
	if err != nil {
		return err
	}
	join := func(ctx context.Context, i int) (botrun.Client, error) {
		room := f.room
		if f.games > 1 {
			room = fmt.Sprintf("%s-%d", f.room, i/f.players)
		}
		conn, err := dial(ctx, i)
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
	return printReport(stdout, lockstepReport{&r}, f.json, func(w io.Writer) {
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

// lockstepReport is the summary of lockstep bots (bot and demo --json):
// exactly a botrun.Report.
type lockstepReport struct{ *botrun.Report }

func (r lockstepReport) table(w io.Writer) { printBotReport(w, r.Report) }

// verdict is errNotInSync unless the clients agree.
func (r lockstepReport) verdict() error {
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
	fmt.Fprintf(w, "in sync: %s\n", yesNo(r.AllInSync, "yes: every final hash matches, no desync"))
}
