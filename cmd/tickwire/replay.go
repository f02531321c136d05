package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

const replayUsage = "tickwire replay info FILE [--json] | verify FILE [--key HEX] | play FILE [--speed 8]"

// runReplay reads replay files: info, verify, play.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, replayUsage)
	}
	sub, args := args[0], args[1:]
	if isHelpFlag(sub) {
		return errHelp
	}
	fs := flag.NewFlagSet("replay "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "info: print one JSON object")
	key := fs.String("key", "", "verify: the relay's Ed25519 public key (hex) the replay must be signed by (default: the key the file names)")
	speed := fs.Float64("speed", 8, "play: times the match's own speed (0: as fast as the machine goes)")
	if err := parseAround(fs, args); err != nil {
		return err
	}
	if sub != "info" && sub != "verify" && sub != "play" {
		return fmt.Errorf("%w: unknown replay subcommand %q (info, verify, play)", errUsage, sub)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: replay %s FILE", errUsage, sub)
	}
	path := fs.Arg(0)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r, damage := replay.Read(b)
	if r == nil {
		return fmt.Errorf("%s: %w", path, damage)
	}
	switch sub {
	case "info":
		info := newReplayInfo(path, r, damage)
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(info)
		}
		info.print(stdout)
		return nil
	case "verify":
		want, err := optionalKey("--key", *key)
		if err != nil {
			return err
		}
		return verifyReplay(ctx, stdout, newProgressLine(stderr, false), r, damage, want)
	}
	if *speed < 0 {
		return fmt.Errorf("%w: --speed must not be negative", errUsage)
	}
	return playReplay(ctx, stdout, newProgressLine(stderr, false), r, damage, *speed)
}

// optionalKey parses flag's value, an Ed25519 public key in hex; "" is
// none.
func optionalKey(flag, v string) (ed25519.PublicKey, error) {
	if v == "" {
		return nil, nil
	}
	k, err := hex.DecodeString(v)
	if err != nil || len(k) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: %s must be %d hex-encoded bytes", errUsage, flag, ed25519.PublicKeySize)
	}
	return k, nil
}

// parseAround parses fs's flags before and after its arguments.
func parseAround(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	flagArgs(fs, pos)
	return nil
}

// verifyReplay checks r's signature chain and, for the reference game,
// re-simulates it against every recorded hash. It fails naming the first
// bad tick, and fails a file that is truncated, unfinished or
// incomplete. The re-simulation's progress shows on line (when standard
// error is a terminal).
func verifyReplay(ctx context.Context, w io.Writer, line *progressLine, r *replay.Replay, damage error, key ed25519.PublicKey) error {
	var errs []error
	if damage != nil {
		fmt.Fprintf(w, "file: %v (%d of %d bytes read)\n", damage, r.Whole, r.Size)
		errs = append(errs, damage)
	}
	if err := r.Verify(key); err != nil {
		fmt.Fprintf(w, "signature chain: %v\n", err)
		errs = append(errs, err)
	} else {
		fmt.Fprintf(w, "signature chain: ok, %d signatures by %x\n", r.Signed(), []byte(r.Header.RelayKey))
	}
	switch f := r.Footer; {
	case f == nil:
		fmt.Fprintf(w, "footer: none: the match was not finished (%d ticks recorded)\n", r.Ticks())
		errs = append(errs, fmt.Errorf("unfinished: no footer after tick %d", r.Ticks()))
	case f.Incomplete():
		tick := uint64(0)
		if len(r.Gaps) > 0 {
			tick = r.Gaps[0].Tick
		}
		fmt.Fprintf(w, "footer: incomplete: the writer lost %d frames, the first at tick %d (playable, not ranked-verifiable)\n", f.LostFrames, tick)
		errs = append(errs, fmt.Errorf("tick %d: incomplete: %d frames lost", tick, f.LostFrames))
	default:
		fmt.Fprintf(w, "footer: %d ticks, final hash %016x after tick %d\n", f.Ticks, f.FinalHash, f.FinalTick)
	}
	res, err := resimulate(ctx, r, 0, progressOn(line, "verifying"))
	line.clear()
	if err != nil {
		fmt.Fprintf(w, "re-simulation: %v\n", err)
		errs = append(errs, err)
	} else if res.model != nil {
		fmt.Fprintf(w, "re-simulation: %s\n", res)
		if err := res.err(); err != nil {
			errs = append(errs, err)
		}
	} else {
		fmt.Fprintf(w, "re-simulation: not available for %s game %q (chain and footer checked)\n", r.Header.Model, r.Header.Game)
	}
	if len(errs) > 0 {
		return errs[0]
	}
	fmt.Fprintln(w, "valid")
	return nil
}

// playReplay re-simulates r at speed times its tick rate, with a
// progress bar on line (when standard error is a terminal).
func playReplay(ctx context.Context, w io.Writer, line *progressLine, r *replay.Replay, damage error, speed float64) error {
	if damage != nil {
		fmt.Fprintf(w, "file: %v: playing the %d ticks before it\n", damage, len(r.Frames))
	}
	var pace time.Duration
	if speed > 0 && r.Header.TickRate > 0 {
		pace = time.Duration(float64(time.Second) / (float64(r.Header.TickRate) * speed))
	}
	res, err := resimulate(ctx, r, pace, progressOn(line, "playing"))
	line.clear()
	if err != nil {
		return err
	}
	if res.model == nil {
		return fmt.Errorf("cannot re-simulate model %q game %q", r.Header.Model, r.Header.Game)
	}
	fmt.Fprintf(w, "played: %s\n", res)
	return res.err()
}

// progressOn returns the progress callback that draws a bar on line
// every 30 ticks and at the end, or nil when line shows nothing.
func progressOn(line *progressLine, what string) func(done, total int) {
	if line.w == nil {
		return nil
	}
	return func(done, total int) {
		if done%30 == 0 || done == total {
			line.printf("%s %s", what, progressBar(done, total, 40))
		}
	}
}

// progressBar draws done of total in width cells.
func progressBar(done, total, width int) string {
	fill := 0
	if total > 0 {
		fill = done * width / total
	}
	return fmt.Sprintf("[%s%s] tick %d/%d", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total)
}

// resimulation is what re-simulating a replay found.
type resimulation struct {
	model *lockstep.ReplayPlayback // nil: the game cannot be re-simulated
	ticks uint64
	hash  uint64
}

func (s resimulation) String() string {
	pb := s.model
	out := fmt.Sprintf("%d ticks, %d of %d recorded hashes checked", s.ticks, pb.Checked(), pb.Expected())
	if d := pb.Diagnostics(); d.Desyncs > 0 {
		return out + fmt.Sprintf(", %d differ, the first at tick %d", d.Desyncs, d.DesyncTick)
	}
	if pb.StoppedAtGap() {
		out += ", stopped at the first lost frame"
	}
	return out + fmt.Sprintf(", all match; state hash %016x", s.hash)
}

// err names the first tick whose re-simulated hash differs.
func (s resimulation) err() error {
	if d := s.model.Diagnostics(); d.Desyncs > 0 {
		return fmt.Errorf("tick %d: the re-simulated state hash differs from the recorded one", d.DesyncTick)
	}
	return nil
}

// errNoGame: the replay's game is not one this binary can re-simulate.
var errNoGame = errors.New("no simulation of this game")

// resimulate plays r's frames through the reference game, a tick every
// pace (0: at once), telling progress as it goes. A replay of a game the
// binary does not have gives a zero resimulation.
func resimulate(ctx context.Context, r *replay.Replay, pace time.Duration, progress func(done, total int)) (resimulation, error) {
	if r.Header.Model != room.Lockstep || r.Header.Game != lockstepbot.GameName {
		return resimulation{}, nil
	}
	s, err := lockstepbot.NewSim(len(r.Header.Players), r.Header.Seed)
	if err != nil {
		return resimulation{}, fmt.Errorf("%w: %v", errNoGame, err)
	}
	pb := lockstep.NewReplayPlayback(r)
	net := &pacedPlayback{ReplayPlayback: pb, budget: -1}
	res := resimulation{model: pb}
	loop := lockstep.GameLoop{Sim: s, Net: net, OnTick: func(tick, hash uint64) { res.ticks, res.hash = tick+1, hash }}
	var tick *time.Ticker
	const step = 50 * time.Millisecond
	if pace > 0 {
		tick = time.NewTicker(step)
		defer tick.Stop()
	}
	var owed float64
	for net.more() {
		if tick != nil {
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-tick.C:
			}
			owed += float64(step) / float64(pace)
			net.budget = int(owed)
			owed -= float64(net.budget)
		}
		n, err := loop.Step()
		if err != nil {
			return res, err
		}
		if progress != nil {
			progress(pb.Progress())
		}
		if n == 0 && tick == nil {
			break
		}
	}
	return res, nil
}

// pacedPlayback hands out at most budget ticks (negative: no limit).
type pacedPlayback struct {
	*lockstep.ReplayPlayback
	budget int
}

func (p *pacedPlayback) PollTick() (protocol.TickOrders, bool) {
	if p.budget == 0 {
		return protocol.TickOrders{}, false
	}
	t, ok := p.ReplayPlayback.PollTick()
	if ok && p.budget > 0 {
		p.budget--
	}
	return t, ok
}

// more reports whether recorded ticks remain.
func (p *pacedPlayback) more() bool {
	done, total := p.Progress()
	return done < total && !p.StoppedAtGap()
}
