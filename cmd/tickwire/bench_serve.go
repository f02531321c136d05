package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickwire/tickwire/internal/udpfloor"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server"
)

// serveBenchReport is the JSON object "tickwire bench serve --json" prints:
// the datapath figures of one mode's rooms under its own bots, plaintext
// (the top-level fields) and encrypted.
type serveBenchReport struct {
	Mode        string `json:"mode"`
	Games       int    `json:"games"`
	Players     int    `json:"players"` // per game
	TickRate    int    `json:"tps"`
	CPUs        int    `json:"cpus"`
	LoadAverage string `json:"load_average"` // /proc/loadavg before the run
	datapathFigures
	// TurnP50MS and TurnP99MS are the rooms' turn times (a turn: the
	// room's messages in, its core's tick, its output out; a state sync
	// room's frame) over their last turns at the end of the plaintext run.
	TurnP50MS float64          `json:"turn_p50_ms"`
	TurnP99MS float64          `json:"turn_p99_ms"`
	FloorRecv udpfloor.Floor   `json:"floor_recv"`
	FloorSend udpfloor.Floor   `json:"floor_send"`
	Encrypted *datapathFigures `json:"encrypted"` // null with --encrypted=false
}

// benchServe measures the server hosting one mode: its rooms loaded by
// the mode's own bots ("tickwire bot --mode M", one process per game) in
// processes of their own, its CPU per datagram against the batched UDP
// floor, plaintext then encrypted.
func benchServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	name := fs.String("mode", "lockstep", "network model: "+modeNames(modes()))
	games := fs.Int("games", 4, "games (one bot process each)")
	players := fs.Int("players", 4, "players per game")
	duration := fs.Duration("duration", 5*time.Second, "measurement time of each run")
	tps := fs.Int("tps", 30, "the server's tick rate (lockstep)")
	encrypted := fs.Bool("encrypted", true, "also measure an encrypted run")
	floorN := fs.Int("floor-datagrams", 100_000, "datagrams per side of the UDP floor measurement")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var m mode
	for _, c := range modes() {
		if c.name() == *name {
			m = c
		}
	}
	if fs.NArg() > 0 || m == nil || *games < 1 || *players < 1 || *players > 255 || *duration <= 0 || *tps < 1 || *floorN < 1 {
		return fmt.Errorf("%w: bench serve --mode %s [--games N] [--players N] [--duration D] [--tps N] [--encrypted=false] [--json]",
			errUsage, strings.ReplaceAll(modeNames(modes()), ", ", "|"))
	}
	progress := stderr
	if *asJSON {
		progress = io.Discard
	}
	r := serveBenchReport{Mode: *name, Games: *games, Players: *players, TickRate: *tps, CPUs: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		r.LoadAverage = strings.TrimSpace(string(b))
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	run := func(secure bool) (datapathFigures, []float64, error) {
		models, err := m.serverModels(hostOptions{tickRate: *tps, maxRoomSize: 255})
		if err != nil {
			return datapathFigures{}, nil, err
		}
		var turns []float64
		s := steadyRun{models: models, tickRate: *tps, secure: secure, games: *games, clients: *games * *players, settle: 2 * time.Second, measure: *duration,
			progress: progress, after: func(srv *server.Server) { turns = turnTimes(srv) },
			load: func(addr, key string) []*exec.Cmd {
				var cmds []*exec.Cmd
				for g := range *games {
					args := []string{"bot", "--mode", *name, "--server", addr, "--room", fmt.Sprintf("serve-%d", g),
						"--players", strconv.Itoa(*players), "--ticks", "1000000"}
					if key == "" {
						args = append(args, "--insecure")
					} else {
						args = append(args, "--server-key", key)
					}
					c := exec.Command(exe, args...)
					c.Stdout = io.Discard
					cmds = append(cmds, c)
				}
				return cmds
			}}
		f, err := s.run(ctx)
		return f, turns, err
	}
	f, turns, err := run(false)
	if err != nil {
		return err
	}
	r.datapathFigures = f
	if len(turns) > 0 {
		r.TurnP50MS, r.TurnP99MS = 1e3*metrics.Quantile(turns, 0.50), 1e3*metrics.Quantile(turns, 0.99)
	}
	if *encrypted {
		e, _, err := run(true)
		if err != nil {
			return fmt.Errorf("encrypted run: %w", err)
		}
		r.Encrypted = &e
	}
	if r.FloorRecv, r.FloorSend, err = floorPair(f.BytesPerDatagramIn, f.BytesPerDatagramOut, *floorN); err != nil {
		return err
	}
	r.withFloor(r.FloorRecv, r.FloorSend)
	if r.Encrypted != nil {
		r.Encrypted.withFloor(r.FloorRecv, r.FloorSend)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "%s: %d games of %d players, %d CPUs, load average %s\n", r.Mode, r.Games, r.Players, r.CPUs, r.LoadAverage)
	printFigures(stdout, "plaintext", &r.datapathFigures)
	fmt.Fprintf(stdout, "  turn time p50 %.2f ms, p99 %.2f ms; floor: receive %.2f µs at %d bytes, send %.2f µs at %d bytes\n",
		r.TurnP50MS, r.TurnP99MS, r.FloorRecv.RecvUs, r.FloorRecv.Size, r.FloorSend.SendUs, r.FloorSend.Size)
	if r.Encrypted != nil {
		printFigures(stdout, "encrypted", r.Encrypted)
	}
	return nil
}

// printFigures prints one measurement's datapath figures.
func printFigures(w io.Writer, what string, f *datapathFigures) {
	fmt.Fprintf(w, "  %s: %.0f + %.0f datagrams/s, %.2f µs of server CPU per datagram, floor %.2f µs, ratio %.2f; %.0f games per core; server %.2f CPU-s, load %.2f CPU-s\n",
		what, float64(f.DatagramsIn)/f.Seconds, float64(f.DatagramsOut)/f.Seconds, f.CPUUsPerDatagram, f.FloorUsPerDatagram, f.RatioToFloor,
		f.GamesPerCore, f.ServerCPUSeconds, f.LoadgenCPUSeconds)
}

// turnTimes are the last turn times of every room, in seconds, sorted.
func turnTimes(srv *server.Server) []float64 {
	var out []float64
	for _, v := range srv.RoomViews() {
		for _, t := range v.Status.Turns {
			out = append(out, t.Seconds())
		}
	}
	slices.Sort(out)
	return out
}
