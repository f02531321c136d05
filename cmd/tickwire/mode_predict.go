package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/predict/predictbot"
	"github.com/tickwire/tickwire/predict/predictserver"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// predictMode is client prediction with server reconciliation (packages
// predict, predict/predictserver, predict/netlayer; its bots,
// predict/predictbot).
type predictMode struct {
	// file is the [relay.prediction] table.
	file predictionFile
}

func (*predictMode) name() string      { return "predict" }
func (*predictMode) modelName() string { return room.Prediction }

func (m *predictMode) settings() (string, modeSettings) { return "prediction", &m.file }

func (m *predictMode) serverModels(h hostOptions) ([]room.Model, error) {
	return []room.Model{m.file.recorded(h.replays.config())}, nil
}

// predictionGame is the game of prediction rooms and clients
// (predictbot.Game): the reference action game at the room's tick rate on
// an arena of the given side (0: 48 units).
func predictionGame(tickRate, arena int, seed uint64) predict.Game {
	return predictbot.Game(tickRate, arena, seed)
}

// predictionFile is the [relay.prediction] table: the prediction
// model's settings. A zero field is unset (the predict.ServerConfig
// default).
type predictionFile struct {
	TickRate      int    `toml:"tick_rate"`      // the server's tick rate if unset
	MaxRoomSize   int    `toml:"max_room_size"`  // 32
	SnapshotEvery int    `toml:"snapshot_every"` // ticks between snapshots; 1
	FullEvery     int    `toml:"full_every"`     // ticks between full snapshots at most; 2 s
	MaxAhead      int    `toml:"max_ahead"`      // ticks an input may be scheduled ahead; 0.5 s
	MaxInputRate  int    `toml:"max_input_rate"` // inputs per second per client; 2 × tick rate
	LateInputs    string `toml:"late_inputs"`    // "apply_next" (default) or "reject"
	// ArenaSize is the side of the reference game's arena in units (48);
	// clients must play the same (bot --mode predict plays 48).
	ArenaSize int `toml:"arena_size"`
	// InterestRadius turns interest management on: each client receives
	// the entities within this many units of its avatar (with hysteresis),
	// those on a line of fire to it and its own; 0 sends every entity.
	InterestRadius float64 `toml:"interest_radius"`
}

func (p *predictionFile) check() error {
	for _, c := range []struct {
		key    string
		v, max int
	}{
		{"relay.prediction.tick_rate", p.TickRate, 1000},
		{"relay.prediction.max_room_size", p.MaxRoomSize, 255},
		{"relay.prediction.snapshot_every", p.SnapshotEvery, 1 << 16},
		{"relay.prediction.full_every", p.FullEvery, 1 << 20},
		{"relay.prediction.max_ahead", p.MaxAhead, 1 << 16},
		{"relay.prediction.max_input_rate", p.MaxInputRate, 1 << 20},
		{"relay.prediction.arena_size", p.ArenaSize, 4096},
	} {
		if c.v < 0 || c.v > c.max {
			return fmt.Errorf("%s: %d is outside 0..%d", c.key, c.v, c.max)
		}
	}
	if p.InterestRadius < 0 || p.InterestRadius > 1e6 {
		return fmt.Errorf("relay.prediction.interest_radius: %g is outside 0..1e6", p.InterestRadius)
	}
	switch p.LateInputs {
	case "", "apply_next", "reject":
		return nil
	}
	return fmt.Errorf("relay.prediction.late_inputs: %q is neither \"apply_next\" nor \"reject\"", p.LateInputs)
}

// model is the prediction network model these settings describe.
func (p predictionFile) model() room.Model { return p.recorded(replay.Config{}) }

// recorded is model, its matches recorded as rc says.
func (p predictionFile) recorded(rc replay.Config) room.Model {
	cfg := predictserver.Config{MaxRoomSize: p.MaxRoomSize, Replays: rc, Server: predict.ServerConfig{
		TickRate: p.TickRate, SnapshotEvery: p.SnapshotEvery, FullEvery: p.FullEvery,
		MaxAhead: p.MaxAhead, MaxInputRate: p.MaxInputRate, Interest: predict.InterestConfig{Radius: p.InterestRadius}}}
	if p.LateInputs == "reject" {
		cfg.Server.Late = predict.LateReject
	}
	return predictionModelOf(cfg, p.ArenaSize)
}

// predictionModel is the prediction network model with default settings,
// its rooms at tickRate (0: the server's).
func predictionModel(tickRate int) room.Model {
	return predictionFile{TickRate: tickRate}.model()
}

// predictionModelOf completes cfg with the reference game on an arena
// of the given side (0: the default).
func predictionModelOf(cfg predictserver.Config, arena int) room.Model {
	cfg.NewGame = func(name string, tickRate int) predict.Game {
		h := fnv.New64a()
		h.Write([]byte(name))
		return predictionGame(tickRate, arena, h.Sum64())
	}
	return predictserver.Model(cfg)
}

// demoPredictFlags are the options of "tickwire demo --mode predict".
type demoPredictFlags struct {
	demoCommon
	local    bool
	arena    int
	interest float64
	play     string
}

func parseDemoPredictFlags(args []string, stderr io.Writer) (demoPredictFlags, error) {
	var f demoPredictFlags
	fs := f.flagSet(demoSpec{name: "demo --mode predict", tps: 60, latency: 50 * time.Millisecond, loss: 0.02,
		ticks: "ticks each bot predicts", seed: "seed of the network impairment", json: "print one JSON object"}, stderr)
	fs.BoolVar(&f.local, "local", false, "one player against the room in this process, through the loopback layer (no sockets)")
	fs.IntVar(&f.arena, "arena", 0, "side of the arena in units (default: 48, larger beyond 16 players to keep the density)")
	fs.StringVar(&f.play, "play", "", "serve the playable page on this HTTP address (e.g. 127.0.0.1:8080) and keep serving: each visitor plays against --players bots")
	fs.Float64Var(&f.interest, "interest", 24, "interest radius in units: each bot receives the entities near it, on a line of fire to it and its own (0: every entity)")
	err := f.parse(fs, args, 255, func() error {
		if f.local {
			f.players = 1
		}
		switch {
		case f.arena < 0 || f.arena > 4096:
			return fmt.Errorf("%w: --arena must be 0..4096", errUsage)
		case f.play != "" && f.local:
			return fmt.Errorf("%w: --play needs the server, not --local", errUsage)
		case f.interest < 0:
			return fmt.Errorf("%w: --interest must be at least 0", errUsage)
		case f.arena == 0:
			f.arena = arenaFor(f.players)
		}
		return nil
	})
	return f, err
}

// arenaFor is the arena side for players: the game's 48 units up to 16
// players, then growing with the square root of the players (the same
// density: 96 units at 64 players), so interest management has a map to
// matter on.
func arenaFor(players int) int {
	if players <= 16 {
		return 48
	}
	return int(math.Round(48 * math.Sqrt(float64(players)/16)))
}

// demo plays a prediction room in one process: bots over real loopback
// UDP sockets impaired by netsim against a server hosting the prediction
// model, or with --local one bot through the loopback layer. It exits
// non-zero unless parity holds.
func (*predictMode) demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseDemoPredictFlags(args, stderr)
	if err != nil {
		return err
	}
	var open func(ctx context.Context, i int) (predict.Network, error)
	var model room.Model
	if f.local {
		open = func(ctx context.Context, _ int) (predict.Network, error) {
			return netlayer.Open(ctx, netlayer.Options{Local: true, Server: predict.ServerConfig{TickRate: f.tps},
				NewGame: func() predict.Game { return predictionGame(f.tps, f.arena, f.seed) }})
		}
	} else if f.play != "" {
		return runDemoPlay(ctx, &f, stdout)
	} else {
		model = predictionFile{TickRate: f.tps, MaxRoomSize: f.players, ArenaSize: f.arena, InterestRadius: f.interest}.model()
		d, err := startDemoServer(ctx, &f.demoCommon,
			server.Config{TickRate: f.tps, Models: []room.Model{model}, DefaultModel: room.Prediction})
		if err != nil {
			return err
		}
		defer d.stop()
		open = predictbot.Remote("demo", f.players, d.dial)
	}
	start := time.Now()
	stop := f.showElapsed(fmt.Sprintf("predict: %d bots predicting %d ticks", f.players, f.ticks), f.tps)
	r := predictbot.Play(ctx, f.players, f.ticks, f.arena, f.local, open)
	stop()
	if model.Metrics != nil && f.interest > 0 {
		r.Interest = predictbot.InterestFigures(model.Metrics(), f.interest, f.arena, f.players, time.Since(start))
	}
	return printReport(stdout, predictReport{&r}, f.json, func(w io.Writer) {
		if f.local {
			fmt.Fprintf(w, "tickwire demo --mode predict --local: 1 bot, %d ticks at %d tps, loopback layer\n", f.ticks, f.tps)
			return
		}
		fmt.Fprintf(w, "tickwire demo --mode predict: %d bots, %d ticks at %d tps, %s\n", f.players, f.ticks, f.tps, f.impairment())
	})
}

// botPredictFlags are the options of "tickwire bot --mode predict".
type botPredictFlags struct {
	botCommon
}

func parseBotPredictFlags(args []string, stderr io.Writer) (botPredictFlags, error) {
	var f botPredictFlags
	fs := f.flagSet(botSpec{name: "bot --mode predict", server: "server address, host:port (required)",
		ticks: "ticks each bot predicts (required)"}, stderr)
	err := f.parse(fs, args, 255, nil)
	return f, err
}

// bot plays prediction bots against a server: "tickwire bot --mode
// predict".
func (*predictMode) bot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseBotPredictFlags(args, stderr)
	if err != nil {
		return err
	}
	tcfg, err := (server.Config{Models: []room.Model{predictionModel(0)}}).Transport()
	if err != nil {
		return err
	}
	dial, err := f.dialer(tcfg)
	if err != nil {
		return err
	}
	r := predictbot.Play(ctx, f.players, f.ticks, 0, false, predictbot.Remote(f.room, f.roomSize, dial))
	if err := noneJoined(f.server, collect(r.Players, func(p *predictbot.Player) error { return p.JoinErr })); err != nil {
		return err
	}
	return f.report(stdout, predictReport{&r}, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot --mode predict: %d bots in room %q of %d, %d ticks, server %s\n", f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}

// errParity makes bot and demo --mode predict exit non-zero after printing
// a summary in which parity does not hold.
var errParity = errors.New("prediction parity does not hold")

// predictReport is the summary of prediction bots (bot and demo --json):
// exactly a predictbot.Report.
type predictReport struct{ *predictbot.Report }

func (r predictReport) table(w io.Writer) {
	fmt.Fprintf(w, "%4s %6s %6s %6s %6s %7s %5s %8s %8s %6s %8s %8s %9s %8s %8s\n", "id", "ticks", "inputs", "acked",
		"corr", "corr/s", "snaps", "err mean", "err p99", "replay", "ack p50", "ack p99", "prov m/d", "up B/s", "down B/s")
	for _, p := range inSeatOrder(r.Players, func(p *predictbot.Player) int { return int(p.ID) }) {
		fmt.Fprintf(w, "%4d %6d %6d %6d %6d %7.2f %5d %8.3f %8.3f %6.0f %6.1fms %6.1fms %4d/%-4d %8.0f %8.0f\n", p.ID, p.Ticks,
			p.InputsSent, p.InputsAcked, p.Corrections, p.CorrectionsPerS, p.HardSnaps, p.MeanError, p.P99Error, p.ReplayDepthP99,
			p.InputToAckP50MS, p.InputToAckP99MS, p.ProvisionalMapped, p.ProvisionalDiscarded, p.BytesUpPerS, p.BytesDownPerS)
		fmt.Fprintf(w, "     corrections: %d late input, %d clamped input, %d interaction, %d unexplained\n",
			p.CorrectionsByCause[predict.CauseLateInput], p.CorrectionsByCause[predict.CauseClampedInput],
			p.CorrectionsByCause[predict.CauseInteraction], p.CorrectionsByCause[predict.CauseUnexplained])
		if p.Error != "" {
			fmt.Fprintf(w, "     stopped: %s\n", p.Error)
		}
	}
	if i := r.Interest; i != nil {
		fmt.Fprintf(w, "interest management (radius %g on a %d-unit arena): snapshots %.0f B/client/s, %.0f without it\n",
			i.Radius, i.Arena, i.SnapshotBytesPerClientS, i.WithoutInterestPerClientS)
	}
	fmt.Fprintf(w, "parity: %s\n", yesNo(r.ParityOK, "yes: every correction explained"))
}

// verdict is errStopped if bots stopped early, else errParity unless
// parity holds.
func (r predictReport) verdict() error {
	if r.ParityOK {
		return nil
	}
	if err := stoppedEarly(collect(r.Players, func(p *predictbot.Player) string { return p.Error })); err != nil {
		return err
	}
	return errParity
}

func (r predictReport) certificates() []json.RawMessage {
	return certsOf(r.Players, func(p *predictbot.Player) json.RawMessage { return p.Certificate })
}
