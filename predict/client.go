package predict

import (
	"time"
)

// ClientConfig configures a predicting client. The zero value is usable:
// every zero field takes the default named beside it.
type ClientConfig struct {
	SendRate            int           // InputMessages per second; the tick rate
	HardSnapThreshold   float64       // world units of error above which the view snaps; 2
	CorrectionSmoothing time.Duration // blend of smaller corrections; 100 ms
	MinInterp           time.Duration // interpolation delay of remote entities, at least; 50 ms
	MaxInterp           time.Duration // ... and at most; 250 ms
	MaxExtrapolate      time.Duration // remote entities extrapolated past the newest snapshot, at most; 250 ms
	PingInterval        time.Duration // 250 ms
	ReportInterval      time.Duration // CorrectionReports, at most one per; 1 s
	LeadTicks           int           // ticks of lead beyond RTT/2, jitter and the send interval; 1
	MaxPending          int           // unacknowledged inputs kept; 512
	ProvisionalTimeout  time.Duration // an acknowledged predicted spawn with no spawn event is discarded after; 1 s
	MaxCatchUp          int           // ticks predicted by one Update; 8
	EffectMemory        int           // side effects remembered for exactly-once; DefaultEffectMemory
}

func (c ClientConfig) withDefaults(tickRate int) ClientConfig {
	c.SendRate = orInt(c.SendRate, tickRate)
	if c.HardSnapThreshold <= 0 {
		c.HardSnapThreshold = 2
	}
	c.CorrectionSmoothing = orDur(c.CorrectionSmoothing, 100*time.Millisecond)
	c.MinInterp = orDur(c.MinInterp, 50*time.Millisecond)
	c.MaxInterp = max(orDur(c.MaxInterp, 250*time.Millisecond), c.MinInterp)
	c.MaxExtrapolate = orDur(c.MaxExtrapolate, 250*time.Millisecond)
	c.PingInterval = orDur(c.PingInterval, 250*time.Millisecond)
	c.ReportInterval = orDur(c.ReportInterval, time.Second)
	c.LeadTicks = orInt(c.LeadTicks, 1)
	c.MaxPending = orInt(c.MaxPending, 512)
	c.ProvisionalTimeout = orDur(c.ProvisionalTimeout, time.Second)
	c.MaxCatchUp = orInt(c.MaxCatchUp, 8)
	c.EffectMemory = orInt(c.EffectMemory, DefaultEffectMemory)
	return c
}

func orDur(v, d time.Duration) time.Duration {
	if v <= 0 {
		return d
	}
	return v
}

// pendingInput is an input predicted but not yet part of an anchor.
type pendingInput struct {
	in      Input
	created time.Duration
}

// ownRecord is the predicted record of the client's entity after a tick.
type ownRecord struct {
	tick uint64
	data []byte
}

// baseline is a reconstructed authoritative snapshot kept for deltas.
type baseline struct {
	tick uint64
	snap []byte
	recs []Record
}

// IntentFunc returns the player's intent for the next predicted tick:
// movement, view and actions (action Sequence may be left 0 for the client
// to number). The client fills in the sequence numbers and ticks.
type IntentFunc func(tick uint64) Input

// Client is the predicting client of one player as a pure state machine:
// server messages in with Receive, the passage of time and the player's
// intents with Update, encoded messages out through Ready and Advance.
//
// Update predicts every tick due (one input per tick, applied at once to
// the Predictive SimulationCore) and batches inputs into InputMessages at
// SendRate. A snapshot restores the authoritative anchor and replays the
// inputs the server has not acknowledged (see reconcile.go); View draws
// the player's own entities from the prediction, smoothed, and everyone
// else's from an interpolation buffer.
//
// A Client is not safe for concurrent use.
type Client struct {
	cfg      ClientConfig
	core     *SimulationCore
	game     Game
	newGame  func(tickRate int) Game // builds the game on the Hello, if set
	player   PlayerID
	tickRate int
	interval time.Duration
	// From the Hello: ticks between snapshots, and how far ahead of the
	// server an input may be scheduled.
	snapEvery uint64
	maxAhead  int
	clock     clock
	now       time.Duration

	hello    bool
	anchored bool
	predTick uint64
	seq      uint32
	actSeq   uint32
	pending  []pendingInput // ascending sequence
	unsent   int            // inputs predicted since the last send (counted in InputsSent when sent)
	measured uint32         // newest sequence whose ack latency was measured
	nextSend time.Duration
	nextPing time.Duration
	pingSent [16]uint64 // client times (µs) of the last pings, to recognise their pongs
	pings    int
	// nextReport and reported: when a CorrectionReport is next due, and
	// the corrections the last one counted.
	nextReport time.Duration
	reported   uint64

	anchorTick     uint64
	anchorViews    []EntityView // every entity of the anchor, for AnchorView
	ackedSnap      uint64
	acked          uint32
	leadAdjust     int // extra lead ticks from late acks
	lastLate       time.Duration
	predInteracted uint64 // last predicted tick another player acted on us

	history   []ownRecord // ring by tick
	baselines []baseline  // ring by tick
	interp    interpBuffer
	smooth    smoothing

	provisional map[EntityID]*provisional
	mapped      map[EntityID]EntityID
	seen        eventSet
	effects     []Event

	out   []Outgoing
	arena []byte
	stats Telemetry

	scratch struct {
		in    InputMessage
		snap  SnapshotMessage
		recs  []Record
		asm   []byte
		patch []byte
		rec   []byte
		views []EntityView
		input [1]PlayerInput
	}
}

// NewClient returns a client predicting with g, a Game of the same rules
// as the server's; its state is replaced by the first full snapshot.
func NewClient(cfg ClientConfig, g Game) *Client {
	c := &Client{
		cfg:         cfg,
		game:        g,
		history:     make([]ownRecord, 256),
		provisional: make(map[EntityID]*provisional),
		mapped:      make(map[EntityID]EntityID),
	}
	if g != nil {
		c.core = newSimulationCore(g, Predictive, orInt(cfg.EffectMemory, DefaultEffectMemory))
	}
	return c
}

// NewClientFor returns a client whose game newGame builds when the
// server's Hello arrives, for the tick rate the server runs: a client
// never has to be told the room's rate, and cannot disagree with it.
// Game returns nil until then.
func NewClientFor(cfg ClientConfig, newGame func(tickRate int) Game) *Client {
	c := NewClient(cfg, nil)
	c.newGame = newGame
	return c
}

// Player is the player the server assigned, 0 before the Hello.
func (c *Client) Player() PlayerID { return c.player }

// Predicting reports whether the client has its Hello, a clock estimate
// and an anchor, and so predicts.
func (c *Client) Predicting() bool { return c.hello && c.anchored && c.clock.ready() }

// PredictedTick is the newest predicted tick.
func (c *Client) PredictedTick() uint64 { return c.predTick }

// AnchorTick is the tick of the newest authoritative snapshot applied.
func (c *Client) AnchorTick() uint64 { return c.anchorTick }

// Game is the predicted game (read it, never step it).
func (c *Client) Game() Game { return c.game }

// Telemetry returns what the client measured so far.
func (c *Client) Telemetry() Telemetry {
	t := c.stats
	t.RTT = c.clock.rtt
	if c.core != nil {
		t.EffectsDeferred = c.core.ledger.deferred
		t.EffectsRemembered = c.core.ledger.size()
	}
	if c.clock.ready() {
		t.ServerTickLag = float64(c.predTick) - c.clock.serverTick(c.now)
	}
	return t
}

// Effects returns the side effects (events) to play since the last call:
// each fires once, whether first predicted or first heard from the
// server. The slice is valid until the next call.
func (c *Client) Effects() []Event {
	e := c.effects
	c.effects = c.effects[len(c.effects):]
	return e
}

// Mapped returns the authoritative id a provisional id was mapped to.
func (c *Client) Mapped(provisional EntityID) (EntityID, bool) {
	id, ok := c.mapped[provisional]
	return id, ok
}

// HasReady reports whether Ready has anything.
func (c *Client) HasReady() bool { return len(c.out) > 0 }

// Ready returns the messages produced since the last Advance.
func (c *Client) Ready() []Outgoing { return c.out }

// Advance acknowledges the last Ready.
func (c *Client) Advance() {
	clear(c.out)
	c.out = c.out[:0]
	c.arena = c.arena[:0]
}

func (c *Client) emit(lane Lane, m appender) {
	start := len(c.arena)
	b, err := m.Append(c.arena)
	if err != nil {
		return
	}
	c.arena = b
	c.stats.BytesUp += uint64(len(b) - start)
	c.out = append(c.out, Outgoing{To: c.player, Lane: lane, Data: b[start:len(b):len(b)]})
}

// targetTick is the tick the prediction should have reached at now: the
// estimated server tick plus enough lead for an input sent now to arrive
// before its tick runs, but never more than the server's MaxAhead less
// one tick (for the estimate's error): an input scheduled further ahead
// would be clamped.
func (c *Client) targetTick(now time.Duration) uint64 {
	lead := c.clock.rtt/2 + 2*c.clock.rttVar + time.Second/time.Duration(c.cfg.SendRate)
	ticks := float64(lead)/float64(c.interval) + float64(c.cfg.LeadTicks+c.leadAdjust)
	ticks = min(ticks, float64(c.maxAhead-1))
	return uint64(max(c.clock.serverTick(now)+ticks, 0))
}

// goneTick is the newest tick an input sent now would reach only after
// the server ran it: the estimated server tick when it arrives, plus one
// tick of margin and the round trip's deviation (a first input sent at
// the exact cutoff would be late by the estimate's error).
func (c *Client) goneTick(now time.Duration) uint64 {
	arrive := float64(c.clock.rtt/2+c.clock.rttVar) / float64(c.interval)
	return uint64(max(c.clock.serverTick(now)+arrive+1, 0))
}

// Update advances the client to now: it pings the server when due,
// predicts every tick the prediction is behind by (asking intent for each
// tick's input), and sends a batch of inputs when the send interval has
// passed.
func (c *Client) Update(now time.Duration, intent IntentFunc) {
	c.now = max(c.now, now)
	if c.hello && c.now >= c.nextPing {
		c.nextPing = c.now + c.cfg.PingInterval
		us := uint64(c.now / time.Microsecond)
		c.pingSent[c.pings%len(c.pingSent)] = us
		c.pings++
		c.emit(LaneSequenced, &Ping{ClientTimeUs: us})
	}
	c.report()
	if !c.Predicting() {
		return
	}
	if c.leadAdjust > 0 && c.now-c.lastLate > 2*time.Second {
		c.leadAdjust--
		c.lastLate = c.now
	}
	target := c.targetTick(c.now)
	// Ticks an input sent now would reach only after the server ran them
	// are stepped without one, as the server will.
	gone := c.goneTick(c.now)
	for n := 0; c.predTick < target && n < c.cfg.MaxCatchUp && len(c.pending) < c.cfg.MaxPending; n++ {
		if c.predTick < gone {
			c.step(nil)
			continue
		}
		c.predictOne(intent(c.predTick + 1))
	}
	c.expireProvisional()
	if len(c.pending) > 0 && c.now >= c.nextSend {
		c.nextSend = c.now + time.Second/time.Duration(c.cfg.SendRate)
		c.sendInputs()
	}
}

// predictOne numbers in, applies it to the prediction at the next tick and
// queues it for sending.
func (c *Client) predictOne(in Input) {
	c.seq++
	t := c.predTick + 1
	in.Sequence, in.ClientTick, in.IntendedTick = c.seq, t, t
	in.TimestampMs = int64(c.now / time.Millisecond)
	for i := range in.Actions {
		if in.Actions[i].Sequence == 0 {
			c.actSeq++
			in.Actions[i].Sequence = c.actSeq
		}
		c.actSeq = max(c.actSeq, in.Actions[i].Sequence)
		in.Actions[i].StartedAtClientTick = t
	}
	c.pending = append(c.pending, pendingInput{in: in, created: c.now})
	c.unsent++
	c.step(&c.pending[len(c.pending)-1].in)
	c.stats.Ticks++
}

// step runs one predicted tick with the player's input (nil: none) and
// records the player's entity, live or during a replay.
func (c *Client) step(in *Input) {
	inputs := c.scratch.input[:0]
	if in != nil {
		c.scratch.input[0] = PlayerInput{Player: c.player, Input: in}
		inputs = c.scratch.input[:1]
	}
	all, fresh := c.core.Step(inputs)
	t := c.game.Tick()
	c.predTick = max(c.predTick, t)
	own, _ := c.game.PlayerEntity(c.player)
	for i := range all {
		if e := &all[i]; e.Target == own && e.Target != 0 && (e.Player != c.player || e.ActionSeq == 0) {
			c.predInteracted = t
		}
	}
	for i := range fresh {
		c.fire(Event{Tick: t, GameEvent: fresh[i]}, true)
	}
	h := &c.history[t%uint64(len(c.history))]
	h.tick = t
	h.data, _ = c.game.AppendRecord(h.data[:0], own)
}

// report sends a CorrectionReport when one is due and the corrections
// changed since the last.
func (c *Client) report() {
	if !c.hello || c.now < c.nextReport || c.stats.Corrections == c.reported {
		return
	}
	c.nextReport = c.now + c.cfg.ReportInterval
	c.reported = c.stats.Corrections
	c.emit(LaneSequenced, &CorrectionReport{Player: c.player, Corrections: c.stats.Corrections, HardSnaps: c.stats.HardSnaps,
		Errors: errorBuckets(&c.stats.CorrectionError)})
}

// sendInputs sends every input the server has not acknowledged (the
// newest MaxInputsPerMessage of them) in one InputMessage on the
// sequenced lane: each message repeats what earlier ones may have lost,
// so a lost datagram costs no retransmission round trip, and the server
// ignores the copies it already has.
func (c *Client) sendInputs() {
	first := 0
	for first < len(c.pending) && c.pending[first].in.Sequence <= c.measured {
		first++
	}
	first = max(first, len(c.pending)-MaxInputsPerMessage)
	if first == len(c.pending) {
		return
	}
	m := &c.scratch.in
	m.Player, m.AckedSnap = c.player, c.ackedSnap
	m.Inputs = m.Inputs[:0]
	for _, p := range c.pending[first:] {
		m.Inputs = append(m.Inputs, p.in)
	}
	c.emit(LaneSequenced, m)
	c.stats.InputsSent += uint64(c.unsent)
	c.unsent = 0
}
