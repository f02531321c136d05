package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/statesync/syncclient"
)

// statesyncMode is majority-hash state sync: every client simulates, the
// server compares their state hashes and repairs the minority from the
// majority (packages statesync, statesync/host; the client and its bots,
// statesync/syncclient).
type statesyncMode struct{}

func (statesyncMode) name() string                     { return "statesync" }
func (statesyncMode) modelName() string                { return room.StateSync }
func (statesyncMode) settings() (string, modeSettings) { return "", nil }

func (statesyncMode) serverModels(h hostOptions) ([]room.Model, error) {
	return []room.Model{host.Model(host.Config{Replays: h.replays.config()})}, nil
}

// ssDemoFlags are the options of "tickwire demo --mode statesync".
type ssDemoFlags struct {
	demoCommon
	ssFaults
	hostile int
}

// ssFaults are the fault-plan options demo and bot share.
type ssFaults struct {
	corrupt int
	churn   float64
}

func (f *ssFaults) add(fs *flag.FlagSet, corrupt int, churn float64) {
	fs.IntVar(&f.corrupt, "corrupt", corrupt, "clients whose state is corrupted once during the match")
	fs.Float64Var(&f.churn, "churn", churn, "share of the clients that leave for a second and come back every 5 s")
}

// ssSeedUsage is the usage of --seed, in demo and bot.
const ssSeedUsage = "seed of the fault plan (and of the demo's network impairment)"

// check checks the fault plan and that the match's frames fit a uint32.
func (f *ssFaults) check(players int, ticks uint64) error {
	switch {
	case ticks > 1<<31:
		return fmt.Errorf("%w: --ticks must be at least 1", errUsage)
	case f.corrupt < 0 || f.corrupt >= players:
		return fmt.Errorf("%w: --corrupt must be 0..players-1", errUsage)
	case f.churn < 0 || f.churn > 0.5:
		return fmt.Errorf("%w: --churn must be 0..0.5", errUsage)
	case (f.corrupt > 0 || f.churn > 0) && ticks < 600:
		return fmt.Errorf("%w: --corrupt and --churn need --ticks of at least 600", errUsage)
	}
	return nil
}

// plans draws the bots' fault plan.
func (f *ssFaults) plans(players int, ticks, seed uint64) []syncclient.Plan {
	return syncclient.Plans(players, uint32(ticks), f.corrupt, f.churn, seed)
}

func parseStateSyncDemoFlags(args []string, stderr io.Writer) (ssDemoFlags, error) {
	var f ssDemoFlags
	fs := f.flagSet(demoSpec{name: "demo --mode statesync", players: 100, nTicks: 1200, latency: 20 * time.Millisecond,
		jitter: 5 * time.Millisecond, loss: 0.02, ticks: "frames to play, at 20 per second", seed: ssSeedUsage,
		json: "print one JSON object"}, stderr)
	f.ssFaults.add(fs, 3, 0.1)
	fs.IntVar(&f.hostile, "hostile", 0, "hostile bots beside the players: they play honestly and lie with every tactic of the adversary tests")
	err := f.parse(fs, args, 255, func() error {
		if f.hostile < 0 || f.players+f.hostile > 255 {
			return fmt.Errorf("%w: --hostile must be 0..%d", errUsage, 255-f.players)
		}
		return f.ssFaults.check(f.players, f.ticks)
	})
	return f, err
}

// ssReport is the summary of a state-sync match (the JSON of demo and
// bot --mode statesync).
type ssReport struct {
	Players                 int               `json:"players"`
	Ticks                   uint64            `json:"ticks"`
	MajorityAgreementPct    float64           `json:"majority_agreement_pct"`
	DesyncsDetected         int               `json:"desyncs_detected"`
	DesyncsRecovered        int               `json:"desyncs_recovered"`
	RecoveryTicksP99        float64           `json:"recovery_ticks_p99"`
	RecoveryBytesP99        float64           `json:"recovery_bytes_p99"`
	LateJoins               int               `json:"late_joins"`
	LateJoinMsP99           float64           `json:"late_join_ms_p99"`
	Tiers                   map[string]uint64 `json:"tiers"`
	UploadBytesPerClientS   float64           `json:"upload_bytes_per_client_s"`
	DownloadBytesPerClientS float64           `json:"download_bytes_per_client_s"`
	ServerCPUMsPerTickP99   float64           `json:"server_cpu_ms_per_tick_p99"`
	AllInSync               bool              `json:"all_in_sync"`
	// HostileIdentified is how many hostile bots the server charged with
	// an offence (demo --hostile).
	HostileIdentified int `json:"hostile_identified"`

	injected int // bots corrupted by the plan
	hostile  int // hostile bots besides the players
	// honestDesyncs and honestRecovered are the honest bots' own counts
	// of desync episodes and repairs, judged when hostile bots desync too.
	honestDesyncs, honestRecovered int
	// stopped is stoppedEarly of the bots that did not reach the last
	// frame.
	stopped error
	// certs are the match results the bots received (certificates).
	certs []json.RawMessage
}

// demo plays a state-sync match in one process over loopback
// UDP through netsim: the server with the state_sync model and one bot
// per player playing the action game. It fails unless every injected
// desync was recovered and every client ends in sync.
func (statesyncMode) demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseStateSyncDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	reports := make(chan host.Report, 1)
	model := host.Model(host.Config{OnReport: func(r host.Report) { reports <- r }})
	d, err := startDemoServer(ctx, &f.demoCommon, server.Config{Models: []room.Model{model}, DefaultModel: room.StateSync})
	if err != nil {
		return err
	}
	plans := f.plans(f.players, f.ticks, f.seed)
	for range f.hostile {
		plans = append(plans, syncclient.Plan{Hostile: true})
	}
	stop := f.showElapsed(fmt.Sprintf("statesync: %d bots playing %d frames", len(plans), f.ticks), 20)
	all := syncclient.Play(ctx, syncclient.Run{Players: len(plans), RoomSize: len(plans), Room: "demo", Frames: uint32(f.ticks), Plans: plans, Dial: d.dial})
	stop()
	d.stop()
	var rep host.Report
	select {
	case rep = <-reports:
	case <-time.After(5 * time.Second):
	}
	results, liars := all[:f.players], all[f.players:]
	r := ssSummary(f.players, f.ticks, results, &rep)
	r.injected, r.hostile = f.corrupt, f.hostile
	for _, p := range liars {
		if rep.Offenders[p.CoreID] > 0 {
			r.HostileIdentified++
		}
	}
	for _, p := range results {
		r.honestDesyncs += p.Desyncs
		r.honestRecovered += p.Recovered
	}
	reportStuck(stderr, results)
	return printReport(stdout, r, f.json, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo --mode statesync: %d bots and %d hostile ones, %d frames at 20 Hz, %s, %d corrupted, %.0f%% churn\n",
			f.players, f.hostile, f.ticks, f.impairment(), f.corrupt, 100*f.churn)
	})
}

// ssSummary combines the bots' results with the server's report (zero
// when the server is elsewhere: then the figures only the server knows
// are left zero and desyncs are counted from what the bots were told).
func ssSummary(players int, ticks uint64, results []syncclient.Result, rep *host.Report) ssReport {
	r := ssReport{Players: players, Ticks: ticks, Tiers: map[string]uint64{},
		certs: certsOf(results, func(p *syncclient.Result) json.RawMessage { return p.Certificate })}
	var up, down, secs float64
	var agreed, voted int
	var recF []uint32
	var recB []int
	var joins []time.Duration
	hashes := map[uint32]int{}
	allHave := true
	for _, p := range results {
		if p.HasHash {
			hashes[p.Hash]++
		} else {
			allHave = false
		}
		if d := metrics.Span(p.Start, p.End); d > 0 {
			up += metrics.PerSecond(p.Up, d)
			down += metrics.PerSecond(p.Down, d)
			secs++
		}
		agreed += p.Agreed
		voted += p.Agreed + p.Disagreed
		r.DesyncsDetected += p.Desyncs
		r.DesyncsRecovered += p.Recovered
		recF = append(recF, p.RecoveryF...)
		recB = append(recB, p.RecoveryB...)
		joins = append(joins, p.LateJoins...)
	}
	r.AllInSync = allHave && len(hashes) == 1
	r.stopped = stoppedEarly(collect(results, func(p *syncclient.Result) string {
		switch {
		case p.HasHash:
			return ""
		case p.Err != nil:
			return p.Err.Error()
		}
		return fmt.Sprintf("stopped at frame %d", p.Frame)
	}))
	if secs > 0 {
		r.UploadBytesPerClientS, r.DownloadBytesPerClientS = up/secs, down/secs
	}
	if voted > 0 {
		r.MajorityAgreementPct = 100 * float64(agreed) / float64(voted)
	}
	if rep != nil && rep.Players > 0 { // the server's own view, when it ran here
		st := rep.Stats
		if st.Voters > 0 {
			r.MajorityAgreementPct = 100 * float64(st.Agreeing) / float64(st.Voters)
		}
		r.DesyncsDetected, r.DesyncsRecovered = int(st.Desyncs), int(st.Recovered)
		recF, recB, joins = rep.RecoveryFrames, rep.RecoveryBytes, rep.LateJoins
		for t := 1; t < len(st.Tiers); t++ {
			r.Tiers[fmt.Sprint(t)] = st.Tiers[t]
		}
		r.ServerCPUMsPerTickP99 = float64(metrics.QuantileOf(rep.FrameCPU, 0.99)) / 1e6
	}
	r.LateJoins = len(joins)
	r.RecoveryTicksP99 = float64(metrics.QuantileOf(recF, 0.99))
	r.RecoveryBytesP99 = float64(metrics.QuantileOf(recB, 0.99))
	r.LateJoinMsP99 = float64(metrics.QuantileOf(joins, 0.99)) / 1e6
	return r
}

func (r ssReport) table(w io.Writer) {
	fmt.Fprintf(w, "majority agreement %.2f%%; desyncs %d detected, %d recovered (p99 %.0f frames, %.0f bytes)\n",
		r.MajorityAgreementPct, r.DesyncsDetected, r.DesyncsRecovered, r.RecoveryTicksP99, r.RecoveryBytesP99)
	fmt.Fprintf(w, "late joins %d (p99 %.0f ms)\n", r.LateJoins, r.LateJoinMsP99)
	if len(r.Tiers) > 0 {
		fmt.Fprintf(w, "frames verified: %s\n", tierLine(r.Tiers))
	}
	fmt.Fprintf(w, "per client: upload %.0f B/s, download %.0f B/s; server CPU p99 %.3f ms per frame\n",
		r.UploadBytesPerClientS, r.DownloadBytesPerClientS, r.ServerCPUMsPerTickP99)
	if r.hostile > 0 {
		fmt.Fprintf(w, "hostile bots identified: %d of %d; honest bots: %d desyncs, %d repairs\n",
			r.HostileIdentified, r.hostile, r.honestDesyncs, r.honestRecovered)
	}
	fmt.Fprintf(w, "in sync: %s\n", verdictLine(r.AllInSync, r.stopped, "yes: every final hash matches"))
}

// tierNames name the server's verification tiers (statesync.Tier), by
// the keys of ssReport.Tiers.
var tierNames = [...]string{"", "normal", "degraded", "minimal", "skipped"}

// tierLine tells the frames per verification tier, best first: "900
// normal, 3 degraded, 0 minimal, 0 skipped".
func tierLine(tiers map[string]uint64) string {
	var parts []string
	for t := 1; t < len(tierNames); t++ {
		parts = append(parts, fmt.Sprintf("%d %s", tiers[fmt.Sprint(t)], tierNames[t]))
	}
	return strings.Join(parts, ", ")
}

// verdict is errStopped when bots did not reach the last frame, and
// errNotInSync unless the clients are in sync and every desync
// was recovered, at least one per corrupted bot. With hostile bots (whose
// desyncs need not be recovered: they may be removed), the honest bots
// must end in sync with at least one repair per corrupted bot, and every
// hostile bot must have been identified.
func (r ssReport) verdict() error {
	switch {
	case !r.AllInSync && r.stopped != nil:
		return r.stopped
	case !r.AllInSync:
		return errNotInSync
	case r.hostile == 0 && (r.DesyncsRecovered != r.DesyncsDetected || r.DesyncsRecovered < r.injected):
		return errNotInSync
	case r.hostile > 0 && (r.honestRecovered < r.injected || r.HostileIdentified < r.hostile):
		return errNotInSync
	}
	return nil
}

// ssJoinErr is why a state-sync bot never joined (its error, as it
// never started), nil once it joined.
func ssJoinErr(p *syncclient.Result) error {
	if p.Start.IsZero() {
		return p.Err
	}
	return nil
}

// reportStuck names the bots that did not reach the last frame.
func reportStuck(w io.Writer, results []syncclient.Result) {
	for _, p := range results {
		if !p.HasHash {
			fmt.Fprintf(w, "bot %d stopped at frame %d: %v\n", p.ID, p.Frame, p.Err)
		}
	}
}

// ssBotFlags are the options of "tickwire bot --mode statesync".
type ssBotFlags struct {
	botCommon
	ssFaults
	seed uint64
}

func parseStateSyncBotFlags(args []string, stderr io.Writer) (ssBotFlags, error) {
	var f ssBotFlags
	fs := f.flagSet(botSpec{name: "bot --mode statesync", server: "server address, host:port (required)",
		ticks: "frames each bot plays (required)"}, stderr)
	f.ssFaults.add(fs, 0, 0)
	fs.Uint64Var(&f.seed, "seed", 1, ssSeedUsage)
	err := f.parse(fs, args, host.Model(host.Config{}).MaxRoomSize, func() error { return f.ssFaults.check(f.players, f.ticks) })
	return f, err
}

// bot plays bot clients in a state-sync room of a remote server. Its
// summary is the bots' view: the figures only the server knows (tiers,
// server CPU) are zero, and desyncs are those the bots were told of.
func (statesyncMode) bot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseStateSyncBotFlags(args, stderr)
	if err != nil {
		return err
	}
	tcfg, err := (server.Config{Models: []room.Model{host.Model(host.Config{})}}).Transport()
	if err != nil {
		return err
	}
	dial, err := f.dialer(tcfg)
	if err != nil {
		return err
	}
	results := syncclient.Play(ctx, syncclient.Run{Players: f.players, RoomSize: f.roomSize, Room: f.room, Frames: uint32(f.ticks),
		Plans: f.plans(f.players, f.ticks, f.seed), Dial: dial})
	if err := noneJoined(f.server, collect(results, ssJoinErr)); err != nil {
		return err
	}
	reportStuck(stderr, results)
	r := ssSummary(f.players, f.ticks, results, nil)
	r.injected = f.corrupt
	return f.report(stdout, r, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire bot --mode statesync: %d bots in room %q of %d, %d frames, server %s\n",
			f.players, f.room, f.roomSize, f.ticks, f.server)
	})
}

func (r ssReport) certificates() []json.RawMessage { return r.certs }
