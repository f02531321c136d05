package main

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/transport"
)

// errInconsistent makes "bot --mode fogauth" and "demo --mode fogauth"
// exit non-zero after a summary in which a client's partial world did
// not match the server's truth of its view.
var errInconsistent = errors.New("a client's partial world differs from the server's truth")

// errMaphack makes "bot --mode fogauth --cheat" exit non-zero when the
// server's answers revealed a hidden entity.
var errMaphack = errors.New("a cheating bot inferred hidden entities")

// fogPlayer is one fog-authoritative bot's line of the summary.
type fogPlayer struct {
	ID              int     `json:"id"`
	Ticks           uint64  `json:"ticks"`
	EntitiesTracked int     `json:"entities_tracked"`
	UpdatesReceived uint64  `json:"updates_received"`
	BytesDownPerS   float64 `json:"bytes_down_per_s"`
	BytesUpPerS     float64 `json:"bytes_up_per_s"`
	Enters          uint64  `json:"enters"`
	Updates         uint64  `json:"updates"`
	Leaves          uint64  `json:"leaves"`
	Snaps           uint64  `json:"snaps"`
	Rejections      uint64  `json:"rejections"`
	Rejoins         int     `json:"rejoins"`
	MaxStaleTicks   uint32  `json:"max_stale_ticks"`
	Consistent      bool    `json:"consistent"`
	// Probes and InferredHiddenEntities are a --cheat bot's: the probes
	// it gave and the hidden entities their answers revealed.
	Probes                 int    `json:"probes,omitempty"`
	InferredHiddenEntities *int   `json:"inferred_hidden_entities,omitempty"`
	Error                  string `json:"error,omitempty"`
}

// fogReport is the summary of a fog-authoritative bot run.
type fogReport struct {
	Players                []fogPlayer `json:"players"`
	ServerTickP99MS        float64     `json:"server_tick_p99_ms"`
	ServerCostExclSimP99US float64     `json:"server_cost_excl_sim_p99_us"`
	NetworkModel           string      `json:"network_model"`
	AllConsistent          bool        `json:"all_consistent"`
	// InferredHiddenEntities sums the --cheat bots' (absent without
	// --cheat); anything but 0 is a maphack.
	InferredHiddenEntities *int `json:"inferred_hidden_entities,omitempty"`
}

// fogRun is what runFogBots needs.
type fogRun struct {
	players int
	ticks   uint64
	room    string
	size    int
	dial    dialer
	dump    string // file of every StateUpdate received, "" for none
	// matchType is asked for in the join.
	matchType string
	// settle bounds the wait for the MatchEnd after the last tick.
	settle time.Duration
	// spectate joins the clients as spectators of a playing room: they
	// watch until the match ends (ticks is not used).
	spectate bool
	// reconnectAfter, if not 0, makes each bot drop its connection after
	// that many ticks and take its seat again on a new one.
	reconnectAfter uint64
	// cheat makes each bot a fogauth.Prober.
	cheat bool
}

// runFogBots joins r.players bot clients to a fog-authoritative room;
// each plays r.ticks ticks from its partial world, tells the server it is
// done, and waits for its final view and the MatchEnd.
func runFogBots(ctx context.Context, r fogRun) (fogReport, error) {
	dump, err := newDumper(r.dump)
	if err != nil {
		return fogReport{}, err
	}
	type result struct {
		p                fogPlayer
		model            string
		tickP99, costP99 uint32
	}
	results := playBots(r.players, func(i int) result {
		p, model, tickP99, costP99 := playFogBot(ctx, r, i, dump)
		return result{p, model, tickP99, costP99}
	})
	rep := fogReport{Players: make([]fogPlayer, r.players), AllConsistent: true}
	for i, res := range results {
		rep.Players[i] = res.p
		rep.AllConsistent = rep.AllConsistent && res.p.Consistent
		if res.model != "" {
			rep.NetworkModel = res.model
		}
		if n := res.p.InferredHiddenEntities; n != nil {
			rep.InferredHiddenEntities = ptr(derefOr(rep.InferredHiddenEntities) + *n)
		}
		rep.ServerTickP99MS = max(rep.ServerTickP99MS, float64(res.tickP99)/1000)
		rep.ServerCostExclSimP99US = max(rep.ServerCostExclSimP99US, float64(res.costP99))
	}
	if err := dump.close(); err != nil {
		return rep, err
	}
	return rep, nil
}

// playFogBot is one bot's whole match.
func playFogBot(ctx context.Context, r fogRun, i int, dump *dumper) (p fogPlayer, model string, tickP99, costP99 uint32) {
	p.ID = i + 1
	conn, err := r.dial(ctx, i)
	if err != nil {
		p.Error = err.Error()
		return
	}
	cfg := fogclient.Config{MatchType: r.matchType}
	if dump != nil {
		cfg.OnStateUpdate = func(tick uint64, data []byte) {
			dump.write(int(binary.LittleEndian.Uint16(data[9:])), tick, data) // the recipient, from the header
		}
	}
	if r.spectate {
		return watchFog(ctx, r, conn, cfg)
	}
	c, err := fogclient.Join(ctx, conn, r.room, r.size, cfg)
	if err != nil {
		p.Error = err.Error()
		return
	}
	p.ID = int(c.Player())
	began := time.Now()
	if r.cheat {
		return cheatFog(ctx, r, c, began)
	}
	b := bot.New(c.Player(), uint64(c.Player())*7919)
	maxRejoins := 0
	if r.reconnectAfter > 0 {
		maxRejoins = 3
		fogclient.PlayBot(ctx, c, b, r.reconnectAfter)
		conn.Close() // the test knob: the connection drops; the seat is taken again below
	}
	redial := func(ctx context.Context) (*transport.Conn, error) { return r.dial(ctx, i) }
	c, p.Rejoins, err = fogclient.PlayBotRejoining(ctx, c, b, r.ticks, redial, cfg, maxRejoins)
	if err != nil {
		p.Error = err.Error()
	}
	defer c.Close() // the connection the bot ended on, whether or not it finished
	p = awaitEnd(ctx, r, c, p)
	p, tickP99, costP99 = fogSummary(p, c, began)
	return p, c.NetworkModel(), tickP99, costP99
}

// awaitEnd tells the server the bot is done and waits for the MatchEnd.
func awaitEnd(ctx context.Context, r fogRun, c *fogclient.Client, p fogPlayer) fogPlayer {
	if err := c.Done(); err != nil && p.Error == "" {
		p.Error = err.Error()
	}
	select {
	case <-c.Ended():
	case <-time.After(r.settle):
		p.Error = "no match end from the server"
	case <-ctx.Done():
	}
	return p
}

// cheatFog is one --cheat bot's whole match: a fogauth.Prober plays,
// then counts what the server's answers revealed.
func cheatFog(ctx context.Context, r fogRun, c *fogclient.Client, began time.Time) (p fogPlayer, model string, tickP99, costP99 uint32) {
	defer c.Close()
	p.ID = int(c.Player())
	pr := fogauth.NewProber(c.Player(), uint64(c.Player())*7919)
	fogclient.PlayProber(ctx, c, pr, r.ticks)
	c.Flush() // the last probes go before Done, so each is answered
	p = awaitEnd(ctx, r, c, p)
	p, tickP99, costP99 = fogSummary(p, c, began)
	p.Probes, p.InferredHiddenEntities = pr.Probes(), ptr(c.ProberInferred(pr))
	return p, c.NetworkModel(), tickP99, costP99
}

func ptr[T any](v T) *T { return &v }

func derefOr(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// watchFog is one spectator's whole match.
func watchFog(ctx context.Context, r fogRun, conn *transport.Conn, cfg fogclient.Config) (p fogPlayer, model string, tickP99, costP99 uint32) {
	c, err := fogclient.Spectate(ctx, conn, r.room, cfg)
	if err != nil {
		p.Error = err.Error()
		return
	}
	defer c.Close()
	p.ID = 0
	began := time.Now()
	fogclient.Watch(ctx, c)
	p, tickP99, costP99 = fogSummary(p, c, began)
	return p, c.NetworkModel(), tickP99, costP99
}

// fogSummary fills p from a client whose match is over.
func fogSummary(p fogPlayer, c *fogclient.Client, began time.Time) (fogPlayer, uint32, uint32) {
	played := metrics.Span(began, time.Now())
	d, fd := c.Diagnostics(), c.FogDiagnostics()
	end, consistent, ok := c.End()
	p.Ticks = d.Tick
	p.EntitiesTracked = fd.EntitiesTracked
	p.UpdatesReceived = fd.UpdatesReceived
	p.BytesDownPerS, p.BytesUpPerS = metrics.PerSecond(d.BytesReceived, played), metrics.PerSecond(d.BytesSent, played)
	w := fd.Counters.World
	p.Enters, p.Updates, p.Leaves, p.Snaps, p.Rejections = w.Enters, w.Updates, w.Leaves, w.Snaps, fd.Counters.Rejections
	p.MaxStaleTicks, p.Consistent = end.MaxStaleTicks, ok && consistent
	if !ok && p.Error == "" {
		p.Error = "the connection ended without a match end"
	}
	return p, end.TickP99Us, end.CostP99Us
}

func (r *fogReport) table(w io.Writer) {
	fmt.Fprintf(w, "%4s %6s %8s %8s %9s %9s %7s %8s %6s %5s %6s %9s  %s\n", "id", "ticks", "entities", "updates",
		"down B/s", "up B/s", "enters", "updated", "leaves", "snaps", "reject", "max stale", "consistent")
	for _, p := range r.Players {
		fmt.Fprintf(w, "%4d %6d %8d %8d %9.0f %9.0f %7d %8d %6d %5d %6d %9d  %v\n", p.ID, p.Ticks, p.EntitiesTracked,
			p.UpdatesReceived, p.BytesDownPerS, p.BytesUpPerS, p.Enters, p.Updates, p.Leaves, p.Snaps, p.Rejections, p.MaxStaleTicks, p.Consistent)
		if p.Error != "" {
			fmt.Fprintf(w, "     stopped: %s\n", p.Error)
		}
	}
	fmt.Fprintf(w, "network model %s; server tick p99 %.3f ms, cost excluding the simulation p99 %.0f µs\n",
		r.NetworkModel, r.ServerTickP99MS, r.ServerCostExclSimP99US)
	fmt.Fprintf(w, "consistent: %v\n", r.AllConsistent)
	if n := r.InferredHiddenEntities; n != nil {
		fmt.Fprintf(w, "hidden entities inferred by the cheating bots: %d\n", *n)
	}
}

// verdict is errInconsistent unless every client ended consistent, and
// errMaphack if --cheat bots inferred a hidden entity.
func (r *fogReport) verdict() error {
	switch {
	case r.InferredHiddenEntities != nil && *r.InferredHiddenEntities > 0:
		return errMaphack
	case !r.AllConsistent:
		return errInconsistent
	}
	return nil
}

// dumper writes every StateUpdate received, one JSON object per line, to
// a temporary file renamed into place when the run ends.
type dumper struct {
	mu   sync.Mutex
	f    *os.File
	path string
	enc  *json.Encoder
	err  error
}

func newDumper(path string) (*dumper, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &dumper{f: f, path: path, enc: json.NewEncoder(f)}, nil
}

type dumpLine struct {
	Player int    `json:"player"`
	Tick   uint64 `json:"tick"`
	Hex    string `json:"hex"`
}

func (d *dumper) write(player int, tick uint64, data []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = d.enc.Encode(dumpLine{Player: player, Tick: tick, Hex: hex.EncodeToString(data)})
	}
}

func (d *dumper) close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	err := errors.Join(d.err, d.f.Sync(), d.f.Close())
	if err == nil {
		err = os.Rename(d.f.Name(), d.path)
	} else {
		os.Remove(d.f.Name())
	}
	return err
}
