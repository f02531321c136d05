package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/examples/echo/echoclient"
	"github.com/tickwire/tickwire/examples/echo/echoserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// echoMode is the example network model (examples/echo; its room,
// examples/echo/echoserver; its client and bots, examples/echo/echoclient):
// a room repeats every line a player says to every player. It is the whole of what a
// new model adds to the binary: this file and its line in modes.
type echoMode struct{}

func (echoMode) name() string                     { return "echo" }
func (echoMode) modelName() string                { return echo.ModelName }
func (echoMode) settings() (string, modeSettings) { return "", nil }

func (echoMode) serverModels(hostOptions) ([]room.Model, error) {
	return []room.Model{echoserver.Model(echoserver.Config{})}, nil
}

// demo plays an echo room in one process: a server hosting the echo
// model and its bots over loopback UDP impaired by netsim. It fails
// unless every bot heard every line once, in order.
func (echoMode) demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f demoCommon
	fs := f.flagSet(demoSpec{name: "demo --mode echo", nTicks: 100, tps: 20, latency: 20 * time.Millisecond, loss: 0.02,
		ticks: "lines each bot says (--tps: lines per second)", seed: "seed of the network impairment", json: "print one JSON object"}, stderr)
	if err := f.parse(fs, args, echoserver.DefaultMaxRoomSize, nil); err != nil {
		return err
	}
	d, err := startDemoServer(ctx, &f, server.Config{Models: []room.Model{echoserver.Model(echoserver.Config{})}, DefaultModel: echo.ModelName})
	if err != nil {
		return err
	}
	defer d.stop()
	stop := f.showElapsed(fmt.Sprintf("echo: %d bots saying %d lines", f.players, f.ticks), f.tps)
	r := echoclient.RunBots(ctx, echoclient.BotRun{Players: f.players, RoomSize: f.players, Room: "demo", Messages: int(f.ticks),
		Interval: time.Second / time.Duration(f.tps), Dial: d.dial})
	stop()
	return printReport(stdout, echoReport{&r}, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo --mode echo: %d bots, %d lines each at %d/s, %s\n", f.players, f.ticks, f.tps, f.impairment())
	})
}

// bot plays echo bots against a server: "tickwire bot --mode echo".
func (echoMode) bot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f botCommon
	fs := f.flagSet(botSpec{name: "bot --mode echo", server: "server address, host:port (required)", ticks: "lines each bot says (required)"}, stderr)
	rate := fs.Int("rate", 20, "lines each bot says per second")
	err := f.parse(fs, args, echoserver.DefaultMaxRoomSize, func() error {
		if *rate < 1 || *rate > 1000 || f.ticks > 1<<20 {
			return fmt.Errorf("%w: --rate must be 1..1000, --ticks at most %d", errUsage, 1<<20)
		}
		return nil
	})
	if err != nil {
		return err
	}
	tcfg, err := (server.Config{Models: []room.Model{echoserver.Model(echoserver.Config{})}}).Transport()
	if err != nil {
		return err
	}
	dial, err := f.dialer(tcfg)
	if err != nil {
		return err
	}
	r := echoclient.RunBots(ctx, echoclient.BotRun{Players: f.players, RoomSize: f.roomSize, Room: f.room, Messages: int(f.ticks),
		Interval: time.Second / time.Duration(*rate), Dial: dial})
	if err := noneJoined(f.server, collect(r.Players, func(p *echoclient.PlayerReport) error { return p.JoinErr })); err != nil {
		return err
	}
	return f.report(stdout, echoReport{&r}, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot --mode echo: %d bots in room %q of %d, %d lines each, server %s\n", f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}

// errNotEchoed makes bot and demo --mode echo exit non-zero after a
// summary in which a bot missed a line or heard one out of order.
var errNotEchoed = errors.New("a bot did not hear every line once, in order")

// echoReport is the summary of echo bots (bot and demo --json): exactly
// an echoclient.Report.
type echoReport struct{ *echoclient.Report }

func (r echoReport) table(w io.Writer) {
	fmt.Fprintf(w, "%4s %6s %6s %6s %9s %9s %9s\n", "id", "said", "echoes", "heard", "reordered", "rtt mean", "rtt max")
	for _, p := range inSeatOrder(r.Players, func(p *echoclient.PlayerReport) int { return int(p.ID) }) {
		fmt.Fprintf(w, "%4d %6d %6d %6d %9d %7.1fms %7.1fms\n", p.ID, p.Said, p.Echoes, p.Heard, p.OutOfOrder, p.RTTMeanMS, p.RTTMaxMS)
		if p.Error != "" {
			fmt.Fprintf(w, "     stopped: %s\n", p.Error)
		}
	}
	fmt.Fprintf(w, "all echoed: %s\n", yesNo(r.AllEchoed, "yes: every bot heard every line once, in order"))
}

// verdict is errStopped if bots stopped early, else errNotEchoed unless
// every line was heard.
func (r echoReport) verdict() error {
	if r.AllEchoed {
		return nil
	}
	if err := stoppedEarly(collect(r.Players, func(p *echoclient.PlayerReport) string { return p.Error })); err != nil {
		return err
	}
	return errNotEchoed
}

func (r echoReport) certificates() []json.RawMessage {
	return certsOf(r.Players, func(p *echoclient.PlayerReport) json.RawMessage { return p.Certificate })
}
