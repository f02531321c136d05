package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tickwire/tickwire/transport"
	"github.com/tickwire/tickwire/transport/securebench"
	"github.com/tickwire/tickwire/transport/transportbench"
)

// transportReport is the JSON object "tickwire bench transport --json"
// prints: one transportbench.Result per workload (tickwire's figures, the
// same code and fields as the bench/peers module), and the security
// figures (null until measured; see measureSecurity).
type transportReport struct {
	Seed uint64 `json:"seed"`
	// DurationS is the sending time of each time-bound workload (W3 sends
	// one message and ends by itself).
	DurationS float64                  `json:"duration_s"`
	Workloads []*transportbench.Result `json:"workloads"`
	Security  *securebench.Result      `json:"security"`
}

// benchTransport runs the transport workloads W1–W5 for tickwire over
// loopback sockets impaired by netsim (see package transportbench).
func benchTransport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var all []string
	for _, w := range transportbench.Workloads() {
		all = append(all, w.Name)
	}
	fs := flag.NewFlagSet("bench transport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	dur := fs.Duration("duration", 5*time.Second, "sending time of each workload (W3 ends by itself)")
	names := fs.String("workload", strings.Join(all, ","), "comma-separated workloads to run (W1-W5, and C1-C3 of the congestion issues)")
	seed := fs.Uint64("seed", 1, "netsim seed; client i uses seed+i")
	cc := fs.String("congestion", "model", "congestion controller: model or fixed-window")
	sweep := fs.Bool("sweep", false, "run the congestion sweep instead: every path of the grid and workload, model beside fixed window, in virtual time (prints a Markdown table)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *sweep {
		return benchSweep(*seed, stdout, stderr)
	}
	peer := transportbench.Tickwire{}
	switch *cc {
	case transport.CongestionModel.String():
	case transport.CongestionFixedWindow.String():
		peer.Congestion = transport.CongestionFixedWindow
	default:
		return fmt.Errorf("%w: --congestion must be model or fixed-window, not %q", errUsage, *cc)
	}
	if *dur <= 0 {
		return fmt.Errorf("%w: --duration must be positive", errUsage)
	}
	var ws []transportbench.Workload
	for _, n := range strings.Split(*names, ",") {
		w, ok := transportbench.WorkloadByName(strings.ToUpper(strings.TrimSpace(n)))
		if !ok {
			return fmt.Errorf("%w: unknown workload %q (have %s, C1, C2, C3)", errUsage, n, strings.Join(all, ", "))
		}
		ws = append(ws, w)
	}
	r := transportReport{Seed: *seed, DurationS: dur.Seconds()}
	progress := newProgressLine(stderr, *asJSON)
	defer progress.clear()
	for i, w := range ws {
		progress.printf("workload %s (%d/%d), %v", w.Name, i+1, len(ws), *dur)
		res, err := transportbench.Run(ctx, peer, w, transportbench.RunConfig{Seed: *seed, Duration: *dur})
		if err != nil {
			return err
		}
		progress.clear()
		res.Peer = "tickwire/" + *cc
		r.Workloads = append(r.Workloads, res)
		if !*asJSON {
			transportbench.WriteText(stdout, res)
		}
	}
	progress.printf("security: the handshake and encryption, %v", *dur)
	sec, err := measureSecurity(ctx, *dur)
	progress.clear()
	if err != nil {
		return fmt.Errorf("security: %w", err)
	}
	r.Security = sec
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	writeSecurityText(stdout, sec)
	return nil
}

// benchSweep runs transportbench's congestion sweep and prints its table
// and a summary line (a bench: cells that miss the bounds are reported in
// the table, not as an error).
func benchSweep(seed uint64, stdout, stderr io.Writer) error {
	paths := transportbench.SweepPaths()
	progress := newProgressLine(stderr, false)
	defer progress.clear()
	transportbench.WriteSweepHeader(stdout)
	cells, misses := 0, 0
	var rows []transportbench.SweepRow
	err := transportbench.RunSweep(paths, seed, func(r transportbench.SweepRow) {
		if cells++; r.Miss != "" {
			misses++
		}
		if rows = append(rows, r); r.Model.Workload != transportbench.SweepFile {
			return
		}
		progress.clear()
		transportbench.WriteSweepRows(stdout, rows)
		rows = rows[:0]
		progress.printf("sweep: %d/%d paths", cells/3, len(paths))
	})
	progress.clear()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d cells, %d within the bounds, %d not\n", cells, cells-misses, misses)
	return nil
}
