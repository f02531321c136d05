package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tickwire/tickwire/lockstep/lockstepbot"
)

// errDiverged makes "desync replay" exit non-zero when the replay parts
// from the log.
var errDiverged = errors.New("the replay diverges from the order log")

// replayJSON is "desync replay --json"'s output.
type replayJSON struct {
	Seed         uint64 `json:"seed"`
	Players      int    `json:"players"`
	Player       int    `json:"player"`
	TicksMatched int    `json:"ticks_matched"`
	Diverged     bool   `json:"diverged"`
	FirstBadTick uint64 `json:"first_bad_tick,omitempty"`
	LoggedHash   string `json:"logged_hash,omitempty"`
	ReplayedHash string `json:"replayed_hash,omitempty"`
	Truncated    bool   `json:"truncated"`
}

// runDesync is "tickwire desync": replay ORDER_LOG re-simulates an order
// log of desync debug level 1 and names the first tick whose state hash
// differs from the one logged.
func runDesync(_ context.Context, args []string, stdout, stderr io.Writer) error {
	const use = "tickwire desync replay ORDER_LOG [--json]"
	if len(args) == 0 || args[0] != "replay" {
		return fmt.Errorf("%w: %s", errUsage, use)
	}
	fs := flag.NewFlagSet("desync replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	var pos []string
	for args = args[1:]; ; args = fs.Args()[1:] {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: %s", errUsage, use)
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := lockstepbot.ReplayOrderLog(f)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	out := replayJSON{Seed: res.Header.Seed, Players: res.Header.Players, Player: int(res.Header.Player),
		TicksMatched: res.Ticks, Diverged: res.Diverged, Truncated: res.Truncated}
	if res.Diverged {
		out.FirstBadTick = res.FirstBadTick
		out.LoggedHash, out.ReplayedHash = fmt.Sprintf("%016x", res.Logged), fmt.Sprintf("%016x", res.Replayed)
	}
	if *asJSON {
		b, _ := json.Marshal(out)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintf(stdout, "order log of player %d in a match of %d, game seed %d\n", out.Player, out.Players, out.Seed)
		if res.Diverged {
			fmt.Fprintf(stdout, "first bad tick: %d (logged hash %s, replayed %s); ticks 0..%d match\n",
				out.FirstBadTick, out.LoggedHash, out.ReplayedHash, int64(res.Ticks)-1)
		} else {
			fmt.Fprintf(stdout, "all %d ticks match the log\n", res.Ticks)
		}
		if res.Truncated {
			fmt.Fprintln(stdout, "the log is truncated: its last record was cut off")
		}
	}
	if res.Diverged {
		return errDiverged
	}
	return nil
}
