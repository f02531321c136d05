package fogclient

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/internal/botpool"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/transport"
)

// PlayerReport is one fog-authoritative bot's line of the summary.
type PlayerReport struct {
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
	Probes                 int  `json:"probes,omitempty"`
	InferredHiddenEntities *int `json:"inferred_hidden_entities,omitempty"`
	// Certificate is the match's certified result the server sent when
	// the match ended (the JSON `tickwire matches verify` reads), if one
	// came.
	Certificate json.RawMessage `json:"certificate,omitempty"`
	Error       string          `json:"error,omitempty"`
	// JoinErr is why the bot never joined: its dial's or its join's
	// error as returned, for the caller to name the cause (a refusal is
	// a *join.JoinError); nil once it joined. Error has its text.
	JoinErr error `json:"-"`
}

// Report is the summary of a fog-authoritative bot run.
type Report struct {
	Players                []PlayerReport `json:"players"`
	ServerTickP99MS        float64        `json:"server_tick_p99_ms"`
	ServerCostExclSimP99US float64        `json:"server_cost_excl_sim_p99_us"`
	NetworkModel           string         `json:"network_model"`
	AllConsistent          bool           `json:"all_consistent"`
	// InferredHiddenEntities sums the --cheat bots' (absent without
	// --cheat); anything but 0 is a maphack.
	InferredHiddenEntities *int `json:"inferred_hidden_entities,omitempty"`
}

// BotRun is what RunBots needs.
type BotRun struct {
	// Players bots join Room, a room of RoomSize players, and play
	// Ticks ticks each.
	Players  int
	Ticks    uint64
	Room     string
	RoomSize int
	// Dial connects bot i (again when it rejoins its seat).
	Dial botpool.Dial
	// Dump, if set, is a file that receives every StateUpdate received,
	// one JSON object per line.
	Dump string
	// MatchType is asked for in the join.
	MatchType string
	// Settle bounds the wait for the MatchEnd after the last tick.
	Settle time.Duration
	// Spectate joins the clients as spectators of a playing room: they
	// watch until the match ends (Ticks is not used).
	Spectate bool
	// ReconnectAfter, if not 0, makes each bot drop its connection after
	// that many ticks and take its seat again on a new one.
	ReconnectAfter uint64
	// Cheat makes each bot a prober (NewProber): it probes what it
	// should not know and reports what the answers revealed.
	Cheat bool
	// NewBot makes the mind of a player's bot for the match c joined,
	// and NewProber a cheating one (with Cheat): the client knows no
	// game, the caller brings it (tickwire's: the reference RTS's,
	// package rtsgame).
	NewBot    func(c *Client) (Mind, error)
	NewProber func(c *Client) (Prober, error)
}

// Prober is a cheating mind: it plays, reads the Rejections, and counts
// the hidden entities the server's answers revealed (0 against a
// maphack-proof server).
type Prober interface {
	Mind
	Observer
	Probes() int
	Inferred(held []protocol.EntityState) int
}

// RunBots joins r.Players bot clients to a fog-authoritative room;
// each plays r.Ticks ticks from its partial world, tells the server it is
// done, and waits for its final view and the MatchEnd.
func RunBots(ctx context.Context, r BotRun) (Report, error) {
	dump, err := newDumper(r.Dump)
	if err != nil {
		return Report{}, err
	}
	type result struct {
		p                PlayerReport
		model            string
		tickP99, costP99 uint32
	}
	results := botpool.Play(r.Players, func(i int) result {
		p, model, tickP99, costP99 := playBot(ctx, r, i, dump)
		return result{p, model, tickP99, costP99}
	})
	rep := Report{Players: make([]PlayerReport, r.Players), AllConsistent: true}
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

// playBot is one bot's whole match.
func playBot(ctx context.Context, r BotRun, i int, dump *dumper) (p PlayerReport, model string, tickP99, costP99 uint32) {
	p.ID = i + 1
	conn, err := r.Dial(ctx, i)
	if err != nil {
		p.Error, p.JoinErr = err.Error(), err
		return
	}
	cfg := Config{MatchType: r.MatchType}
	if dump != nil {
		cfg.OnStateUpdate = func(tick uint64, data []byte) {
			dump.write(int(binary.LittleEndian.Uint16(data[9:])), tick, data) // the recipient, from the header
		}
	}
	if r.Spectate {
		return watch(ctx, r, conn, cfg)
	}
	c, err := Join(ctx, conn, r.Room, r.RoomSize, cfg)
	if err != nil {
		p.Error, p.JoinErr = err.Error(), err
		return
	}
	p.ID = int(c.Player())
	began := time.Now()
	if r.Cheat {
		return cheat(ctx, r, c, began)
	}
	b, err := r.NewBot(c)
	if err != nil {
		p.Error = err.Error()
		c.Close()
		return
	}
	maxRejoins := 0
	if r.ReconnectAfter > 0 {
		maxRejoins = 3
		PlayBot(ctx, c, b, r.ReconnectAfter)
		conn.Close() // the test knob: the connection drops; the seat is taken again below
	}
	redial := func(ctx context.Context) (*transport.Conn, error) { return r.Dial(ctx, i) }
	c, p.Rejoins, err = PlayBotRejoining(ctx, c, b, r.Ticks, redial, cfg, maxRejoins)
	if err != nil {
		p.Error = err.Error()
	}
	defer c.Close() // the connection the bot ended on, whether or not it finished
	p = awaitEnd(ctx, r, c, p)
	p, tickP99, costP99 = summary(p, c, began)
	if p.Error == "" {
		p.Certificate = botpool.Leave(ctx, c.Leave)
	}
	return p, c.NetworkModel(), tickP99, costP99
}

// awaitEnd tells the server the bot is done and waits for the MatchEnd.
func awaitEnd(ctx context.Context, r BotRun, c *Client, p PlayerReport) PlayerReport {
	if err := c.Done(); err != nil && p.Error == "" {
		p.Error = err.Error()
	}
	select {
	case <-c.Over():
	case <-c.Ended():
	case <-time.After(r.Settle):
		p.Error = "no match end from the server"
	case <-ctx.Done():
	}
	return p
}

// cheat is one --cheat bot's whole match: a Prober plays,
// then counts what the server's answers revealed.
func cheat(ctx context.Context, r BotRun, c *Client, began time.Time) (p PlayerReport, model string, tickP99, costP99 uint32) {
	defer c.Close()
	p.ID = int(c.Player())
	pr, err := r.NewProber(c)
	if err != nil {
		p.Error = err.Error()
		return p, c.NetworkModel(), 0, 0
	}
	PlayBot(ctx, c, pr, r.Ticks)
	c.Flush() // the last probes go before Done, so each is answered
	p = awaitEnd(ctx, r, c, p)
	p, tickP99, costP99 = summary(p, c, began)
	inferred := 0
	c.Observed(pr, func(w *fogauth.PartialWorld) { inferred = pr.Inferred(w.Entities()) })
	p.Probes, p.InferredHiddenEntities = pr.Probes(), ptr(inferred)
	return p, c.NetworkModel(), tickP99, costP99
}

func ptr[T any](v T) *T { return &v }

func derefOr(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// watch is one spectator's whole match.
func watch(ctx context.Context, r BotRun, conn *transport.Conn, cfg Config) (p PlayerReport, model string, tickP99, costP99 uint32) {
	c, err := Spectate(ctx, conn, r.Room, cfg)
	if err != nil {
		p.Error, p.JoinErr = err.Error(), err
		return
	}
	defer c.Close()
	p.ID = 0
	began := time.Now()
	Watch(ctx, c)
	p, tickP99, costP99 = summary(p, c, began)
	if p.Error == "" {
		p.Certificate = botpool.Leave(ctx, c.Leave) // spectators receive the certified result too
	}
	return p, c.NetworkModel(), tickP99, costP99
}

// summary fills p from a client whose match is over.
func summary(p PlayerReport, c *Client, began time.Time) (PlayerReport, uint32, uint32) {
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
