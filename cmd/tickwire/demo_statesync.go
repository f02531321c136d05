package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/relay/lanes"
	"github.com/tickwire/tickwire/relay/server"
	"github.com/tickwire/tickwire/relay/server/room"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/transport"
)

// ssDemoFlags are the options of "tickwire demo --mode statesync".
type ssDemoFlags struct {
	players int
	ticks   uint64
	latency time.Duration
	jitter  time.Duration
	loss    float64
	ssFaults
	json bool
	sec  securityFlags
}

// ssFaults are the fault-plan options demo and bot share.
type ssFaults struct {
	corrupt int
	churn   float64
	seed    uint64
}

func (f *ssFaults) add(fs *flag.FlagSet, corrupt int, churn float64) {
	fs.IntVar(&f.corrupt, "corrupt", corrupt, "clients whose state is corrupted once during the match")
	fs.Float64Var(&f.churn, "churn", churn, "share of the clients that leave for a second and come back every 5 s")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the fault plan (and of the demo's network impairment)")
}

func (f *ssFaults) check(players int, ticks uint64) error {
	switch {
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
func (f *ssFaults) plans(players int, ticks uint64) []ssPlan {
	return ssPlans(players, uint32(ticks), f.corrupt, f.churn, f.seed)
}

func parseStateSyncDemoFlags(args []string, stderr io.Writer) (ssDemoFlags, error) {
	var f ssDemoFlags
	fs := flag.NewFlagSet("demo --mode statesync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&f.players, "players", 100, "bot players (1..255)")
	fs.Uint64Var(&f.ticks, "ticks", 1200, "frames to play, at 20 per second")
	fs.DurationVar(&f.latency, "latency", 20*time.Millisecond, "one-way delay added in each direction of every client")
	fs.DurationVar(&f.jitter, "jitter", 5*time.Millisecond, "uniform ± jitter on that delay")
	fs.Float64Var(&f.loss, "loss", 0.02, "independent packet loss in each direction")
	f.ssFaults.add(fs, 3, 0.1)
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	f.sec.addInsecure(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.players < 1 || f.players > 255:
		return f, fmt.Errorf("%w: --players must be 1..255", errUsage)
	case f.ticks < 1 || f.ticks > 1<<31:
		return f, fmt.Errorf("%w: --ticks must be at least 1", errUsage)
	}
	if err := f.ssFaults.check(f.players, f.ticks); err != nil {
		return f, err
	}
	link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
	if err := link.Validate(); err != nil {
		return f, fmt.Errorf("%w: %v", errUsage, err)
	}
	return f, nil
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
}

// ssPlans draws the fault plan: corrupt bots corrupted once each, spread
// over the match, and churn of the room leaving and coming back every 100
// frames; no fault in the last 300 frames, so that every one is repaired
// before the end.
func ssPlans(players int, ticks uint32, corrupt int, churn float64, seed uint64) []ssPlan {
	rng := rand.New(rand.NewPCG(seed, 0x55))
	plans := make([]ssPlan, players)
	order := rng.Perm(players)
	victims := order[:corrupt]
	for k, i := range victims {
		plans[i].corruptAt = 200 + uint32(k+1)*(ticks-500)/uint32(corrupt+1)
	}
	others := order[corrupt:]
	per := int(churn*float64(players) + 0.5)
	for at := uint32(100); at+300 < ticks && len(others) > 0; at += 100 {
		for range per {
			i := others[rng.IntN(len(others))]
			plans[i].churnAt = append(plans[i].churnAt, at+uint32(rng.IntN(50)))
		}
	}
	return plans
}

// runStateSyncDemo plays a state-sync match in one process over loopback
// UDP through netsim: the server with the state_sync model and one bot
// per player playing the action game. It fails unless every injected
// desync was recovered and every client ends in sync.
func runStateSyncDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseStateSyncDemoFlags(args, stderr)
	if err != nil {
		return err
	}
	reports := make(chan host.Report, 1)
	model := host.Model(host.Config{OnReport: func(r host.Report) { reports <- r }})
	relayCfg, clientCfg := lanes.TransportConfig(), lanes.TransportConfig()
	f.sec.exemptLoopback = true // every bot connects from loopback
	sc, err := f.sec.serverConfig(0)
	if err != nil {
		return err
	}
	if sc != nil {
		relayCfg.Security = sc
		clientCfg.Security = &transport.SecurityConfig{ServerKey: sc.Identity.Public().(ed25519.PublicKey)}
	}
	d, err := startLocalRelay(ctx, relayCfg, server.Config{Models: []room.Model{model}, DefaultModel: room.StateSync})
	if err != nil {
		return err
	}
	plans := f.plans(f.players, f.ticks)
	link := netsim.Link{Latency: f.latency, Jitter: f.jitter, Loss: f.loss}
	dial := func(ctx context.Context, i int) (*transport.Conn, error) {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		impaired := netsim.Wrap(pc, netsim.Config{Seed: f.seed*1000 + uint64(i), Out: link, In: link})
		conn, err := transport.Dial(ctx, impaired, d.addr, clientCfg)
		if err != nil {
			impaired.Close()
		}
		return conn, err
	}
	results := playStateSync(ctx, f.players, f.players, "demo", uint32(f.ticks), plans, dial)
	d.stop()
	var rep host.Report
	select {
	case rep = <-reports:
	case <-time.After(5 * time.Second):
	}
	r := ssSummary(f.players, f.ticks, results, &rep)
	reportStuck(stderr, results)
	injected := 0
	for _, p := range plans {
		if p.corruptAt != 0 {
			injected++
		}
	}
	return printStateSync(stdout, &r, f.json, r.DesyncsRecovered == r.DesyncsDetected && r.DesyncsRecovered >= injected, func(w io.Writer) {
		fmt.Fprintf(w, "tickwire demo --mode statesync: %d bots, %d frames at 20 Hz, %v ± %v one-way, %.0f%% loss each way, %d corrupted, %.0f%% churn\n",
			f.players, f.ticks, f.latency, f.jitter, 100*f.loss, f.corrupt, 100*f.churn)
	})
}

// playStateSync joins n bots (of a room of roomSize) and plays them to
// the end concurrently.
func playStateSync(ctx context.Context, n, roomSize int, roomName string, ticks uint32, plans []ssPlan,
	dial func(context.Context, int) (*transport.Conn, error)) []ssPlayerResult {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(ticks)*50*time.Millisecond+2*time.Minute)
	defer cancel()
	results := make([]ssPlayerResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			conn, err := dial(ctx, i)
			if err != nil {
				results[i].Err = err
				return
			}
			p, err := joinStateSync(ctx, conn, roomName, roomSize, ticks, plans[i])
			if err != nil {
				conn.Close()
				results[i].Err = err
				return
			}
			results[i] = p.play(ctx)
		})
	}
	wg.Wait()
	return results
}

// ssSummary combines the bots' results with the server's report (zero
// when the server is elsewhere: then the figures only the server knows
// are left zero and desyncs are counted from what the bots were told).
func ssSummary(players int, ticks uint64, results []ssPlayerResult, rep *host.Report) ssReport {
	r := ssReport{Players: players, Ticks: ticks, Tiers: map[string]uint64{}}
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
		if d := p.End.Sub(p.Start).Seconds(); d > 0 {
			up += float64(p.Up) / d
			down += float64(p.Down) / d
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
		r.ServerCPUMsPerTickP99 = ssPercentile(rep.FrameCPU, 99) / 1e6
	}
	r.LateJoins = len(joins)
	r.RecoveryTicksP99 = ssPercentile(recF, 99)
	r.RecoveryBytesP99 = ssPercentile(recB, 99)
	r.LateJoinMsP99 = ssPercentile(joins, 99) / 1e6
	return r
}

// printStateSync prints the report and returns errNotInSync unless the
// clients are in sync and every desync was recovered.
func printStateSync(w io.Writer, r *ssReport, asJSON, recovered bool, header func(io.Writer)) error {
	if asJSON {
		if err := json.NewEncoder(w).Encode(r); err != nil {
			return err
		}
	} else {
		header(w)
		fmt.Fprintf(w, "majority agreement %.2f%%; desyncs %d detected, %d recovered (p99 %.0f frames, %.0f bytes)\n",
			r.MajorityAgreementPct, r.DesyncsDetected, r.DesyncsRecovered, r.RecoveryTicksP99, r.RecoveryBytesP99)
		fmt.Fprintf(w, "late joins %d (p99 %.0f ms); tiers %v\n", r.LateJoins, r.LateJoinMsP99, r.Tiers)
		fmt.Fprintf(w, "per client: upload %.0f B/s, download %.0f B/s; server CPU p99 %.3f ms per frame\n",
			r.UploadBytesPerClientS, r.DownloadBytesPerClientS, r.ServerCPUMsPerTickP99)
		fmt.Fprintf(w, "in sync: %v\n", r.AllInSync)
	}
	if !r.AllInSync || !recovered {
		return errNotInSync
	}
	return nil
}

// reportStuck names the bots that did not reach the last frame.
func reportStuck(w io.Writer, results []ssPlayerResult) {
	for _, p := range results {
		if !p.HasHash {
			fmt.Fprintf(w, "bot %d stopped at frame %d: %v\n", p.ID, p.Frame, p.Err)
		}
	}
}
