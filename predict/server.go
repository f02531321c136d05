package predict

import (
	"fmt"
	"slices"
	"time"
)

// Outgoing is one encoded message for a player.
type Outgoing struct {
	To   PlayerID
	Lane Lane
	Data []byte
}

// ServerReady is what the server produced since the last Advance: encoded
// messages to send. Their bytes stay valid until Advance.
type ServerReady struct{ Messages []Outgoing }

// ServerStats counts what the authoritative loop did.
type ServerStats struct {
	Ticks          uint64
	Slipped        uint64 // ticks skipped because the loop fell behind
	InputsApplied  uint64
	InputsLate     uint64 // applied at a later tick than intended (LateApplyNext)
	InputsDropped  uint64 // late inputs dropped (LateReject)
	InputsClamped  uint64 // scheduled too far ahead, clamped to MaxAhead
	InputsRejected uint64 // invalid, over the rate, duplicate or overflowing the queue
	Events         uint64
	FullSnapshots  uint64
	DeltaSnapshots uint64
	SnapshotBytes  uint64
	// SnapshotBytesWorld is what the same snapshots would have taken
	// without interest management (every entity, deltas against the same
	// baselines); counted only when it is on.
	SnapshotBytesWorld uint64
}

// queued is an accepted input waiting for its tick.
type queued struct {
	in      Input
	tick    uint64 // intended tick after clamping
	clamped bool   // scheduled beyond MaxAhead and brought back to it
}

type client struct {
	id          PlayerID
	queue       []queued // ascending sequence
	appliedSeq  uint32
	appliedTick uint64
	lateTick    uint64        // last tick an input was applied late or dropped
	clampTick   uint64        // last tick an input clamped to MaxAhead was applied
	clamped     bool          // the input applied this tick was clamped
	actionSeq   uint32        // newest action sequence accepted
	tokens      time.Duration // rate budget, in units of one input's share of a second
	refilled    time.Duration
	ackedSnap   uint64
	lastFull    uint64
	interacted  uint64
	applied     *Input           // the input applied this tick, if any
	interest    []EntityID       // interest management: the entities sent in the last snapshot
	spare       []EntityID       // the next set, built beside it
	sent        []sentSet        // ... and in each kept snapshot, by snapshot number
	origin      []actionOrigin   // the input sequence each of its actions came in
	report      CorrectionReport // the client's last, if reported
	reported    bool
}

// actionOrigin ties an action to the input that carried it, so events of
// merged late inputs name the right one.
type actionOrigin struct{ action, input uint32 }

type historic struct {
	tick uint64
	snap []byte
	recs []Record
}

// Server is the authoritative loop of one prediction room as a pure state
// machine: decoded client messages in with Receive, the passage of time
// with Tick, encoded messages out through Ready and Advance. It never
// reads a clock, starts a goroutine or touches a socket.
//
// Every method takes now, a monotonic duration since an epoch of the
// embedder's choosing; tick k is due at cfg.Epoch + k·Interval. Times on
// the wire are microseconds of the same clock.
//
// Each tick: the inputs due are taken, one per client (lowest sequence
// first), and the game steps once through an Authoritative SimulationCore;
// each applied input is acknowledged, each event numbered and published,
// and every SnapshotEvery ticks each client gets a snapshot, delta-encoded
// against the newest snapshot it acknowledged unless a full one is due.
//
// A Server is not safe for concurrent use.
type Server struct {
	cfg      ServerConfig
	interval time.Duration
	core     *SimulationCore
	game     Game
	now      time.Duration
	clients  []*client // ascending id
	nextEvID uint64
	stats    ServerStats

	inputs   []PlayerInput
	tickEvs  []Event
	refusals []Event    // actions refused since the last tick, published with it
	history  []historic // ring, History entries
	out      []Outgoing
	arena    []byte
	scratch  struct {
		in   InputMessage
		snap SnapshotMessage
		recs []Record
	}
	deltas  []delta // this tick's, by baseline
	patches []byte  // their patched records

	// Interest management, per snapshot: every entity's view, a client's
	// records, its baseline's, its delta.
	views      []EntityView
	candidates []candidate
	filtered   []Record
	baseRecs   []Record
	own        delta
	world      []byte // a snapshot as it would be without interest management, measured
}

// NewServer returns a room running g (at its current tick) under cfg.
func NewServer(cfg ServerConfig, g Game) *Server {
	cfg = cfg.withDefaults()
	return &Server{
		cfg:      cfg,
		interval: time.Second / time.Duration(cfg.TickRate),
		core:     NewSimulationCore(g, Authoritative),
		game:     g,
		nextEvID: 1,
		history:  make([]historic, cfg.History),
	}
}

// Config returns the configuration with defaults applied.
func (s *Server) Config() ServerConfig { return s.cfg }

// ServerTick returns the last tick simulated.
func (s *Server) ServerTick() uint64 { return s.game.Tick() }

// Stats returns the counters.
func (s *Server) Stats() ServerStats { return s.stats }

// Players returns the players in the room, ascending.
func (s *Server) Players() []PlayerID {
	ids := make([]PlayerID, len(s.clients))
	for i, c := range s.clients {
		ids[i] = c.id
	}
	return ids
}

func (s *Server) client(p PlayerID) *client {
	i, ok := slices.BinarySearchFunc(s.clients, p, func(c *client, p PlayerID) int { return int(c.id) - int(p) })
	if !ok {
		return nil
	}
	return s.clients[i]
}

func (s *Server) timeUs() uint64 { return uint64(max(s.now, 0) / time.Microsecond) }

func (s *Server) advance(now time.Duration) { s.now = max(s.now, now) }

// Join admits player p: its entity enters the game now and it is sent a
// Hello; its first snapshot is full.
func (s *Server) Join(now time.Duration, p PlayerID) error {
	s.advance(now)
	if p == 0 || s.client(p) != nil {
		return fmt.Errorf("%w: player %d", ErrRejected, p)
	}
	if len(s.clients) >= s.cfg.MaxPlayers {
		return ErrRoomFull
	}
	if err := s.game.Join(p); err != nil {
		return err
	}
	c := &client{id: p, refilled: s.now, tokens: time.Duration(s.cfg.MaxInputRate) * time.Second}
	i, _ := slices.BinarySearchFunc(s.clients, p, func(c *client, p PlayerID) int { return int(c.id) - int(p) })
	s.clients = slices.Insert(s.clients, i, c)
	h := Hello{Player: p, TickRate: uint16(s.cfg.TickRate), SnapshotEvery: uint16(s.cfg.SnapshotEvery),
		BaselineWindow: uint16(s.cfg.History), MaxAhead: uint16(s.cfg.MaxAhead), ServerTick: s.game.Tick(), ServerTimeUs: s.timeUs()}
	s.emit(p, LaneReliable, &h)
	return nil
}

// Leave removes player p and its entity.
func (s *Server) Leave(now time.Duration, p PlayerID) {
	s.advance(now)
	s.clients = slices.DeleteFunc(s.clients, func(c *client) bool { return c.id == p })
	s.game.Leave(p)
}

// appender is a message that encodes itself.
type appender interface {
	Append(dst []byte) ([]byte, error)
}

// emit encodes m into the arena and queues it for p.
func (s *Server) emit(p PlayerID, lane Lane, m appender) {
	start := len(s.arena)
	b, err := m.Append(s.arena)
	if err != nil {
		// Only an oversized snapshot can fail; the client recovers from
		// the next full one.
		return
	}
	s.arena = b
	s.out = append(s.out, Outgoing{To: p, Lane: lane, Data: b[start:len(b):len(b)]})
}

// HasReady reports whether Ready has anything.
func (s *Server) HasReady() bool { return len(s.out) > 0 }

// Ready returns the messages produced since the last Advance.
func (s *Server) Ready() ServerReady { return ServerReady{Messages: s.out} }

// Advance acknowledges the last Ready: its messages have been sent and the
// server may reuse their memory.
func (s *Server) Advance() {
	clear(s.out)
	s.out = s.out[:0]
	s.arena = s.arena[:0]
}

// NextDeadline is when the next tick is due.
func (s *Server) NextDeadline() time.Duration {
	return s.cfg.Epoch + time.Duration(s.game.Tick()+1)*s.interval
}

// Receive handles one message from player p. Messages of an unknown player
// or that fail to decode or validate are refused with an error and change
// nothing.
func (s *Server) Receive(now time.Duration, p PlayerID, msg []byte) error {
	s.advance(now)
	c := s.client(p)
	if c == nil {
		return fmt.Errorf("%w: %d", ErrUnknown, p)
	}
	t, err := TypeOf(msg)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	switch t {
	case TypeInput:
		return s.receiveInputs(c, msg)
	case TypeCorrectionReport:
		return s.receiveReport(c, msg)
	case TypePing:
		var ping Ping
		if err := ping.Parse(msg); err != nil {
			return err
		}
		s.emit(p, LaneSequenced, &Pong{ClientTimeUs: ping.ClientTimeUs, ServerTimeUs: s.timeUs(), ServerTick: s.game.Tick()})
		return nil
	}
	return fmt.Errorf("%w: unexpected %v from a client", ErrMalformed, t)
}

// receiveReport keeps a client's CorrectionReport: telemetry for the
// server's figures, never for the game.
func (s *Server) receiveReport(c *client, msg []byte) error {
	var m CorrectionReport
	if err := m.Parse(msg); err != nil {
		return err
	}
	if m.Player != c.id {
		return fmt.Errorf("%w: player %d reported as %d", ErrRejected, c.id, m.Player)
	}
	c.report, c.reported = m, true
	return nil
}

// CorrectionReport returns player p's last CorrectionReport, if it sent
// one.
func (s *Server) CorrectionReport(p PlayerID) (CorrectionReport, bool) {
	c := s.client(p)
	if c == nil || !c.reported {
		return CorrectionReport{}, false
	}
	return c.report, true
}

// Tick runs every tick due by now, at most MaxCatchUp of them; beyond, the
// schedule slips so a stalled server does not burst.
func (s *Server) Tick(now time.Duration) {
	s.advance(now)
	for n := 0; s.now >= s.NextDeadline(); n++ {
		if n == s.cfg.MaxCatchUp {
			behind := uint64((s.now-s.NextDeadline())/s.interval) + 1
			s.cfg.Epoch += time.Duration(behind) * s.interval
			s.stats.Slipped += behind
			return
		}
		s.step()
	}
}

// step runs one tick.
func (s *Server) step() {
	t := s.game.Tick() + 1
	s.inputs = s.inputs[:0]
	for _, c := range s.clients {
		if in := s.take(c, t); in != nil {
			s.inputs = append(s.inputs, PlayerInput{Player: c.id, Input: in})
		}
	}
	all, _ := s.core.Step(s.inputs)
	s.stats.Ticks++
	s.tickEvs = s.tickEvs[:0]
	for _, r := range s.refusals {
		r.ID, r.Tick = s.nextEvID, t
		s.nextEvID++
		s.stats.Events++
		s.tickEvs = append(s.tickEvs, r)
	}
	clear(s.refusals)
	s.refusals = s.refusals[:0]
	for i := range all {
		s.tickEvs = append(s.tickEvs, s.publish(&all[i], t))
	}
	for _, c := range s.clients {
		if c.applied != nil {
			s.emit(c.id, LaneSequenced, &InputAck{Player: c.id, Sequence: c.applied.Sequence, AppliedTick: t,
				ServerTimeUs: s.timeUs(), Late: c.applied.IntendedTick < t, Clamped: c.clamped})
			c.applied = nil
		}
	}
	for i := range s.tickEvs {
		m := EventMessage{s.tickEvs[i]}
		for _, c := range s.clients {
			s.emit(c.id, LaneReliable, &m)
		}
	}
	if t%uint64(s.cfg.SnapshotEvery) == 0 {
		s.snapshot(t)
	}
}

// take removes and returns client c's input for tick t. Normally that is
// the one input intended for t. Inputs that arrived after their tick are
// late: under LateApplyNext they are merged into this tick's input (the
// newest input's movement and view, every input's actions, a jump if any
// asked for one), so lateness never accumulates; under LateReject they
// are dropped.
func (s *Server) take(c *client, t uint64) *Input {
	n := 0
	for n < len(c.queue) && c.queue[n].tick <= t {
		n++
	}
	if n == 0 {
		return nil
	}
	due := c.queue[:n]
	c.queue = c.queue[n:]
	if due[0].tick < t {
		c.lateTick = t
	}
	if s.cfg.Late == LateReject {
		keep := n
		if due[n-1].tick < t {
			keep = n + 1 // all of them are late
		}
		for _, q := range due[:keep-1] {
			s.refuse(c, &q.in, RefusedLate)
		}
		s.stats.InputsDropped += uint64(keep - 1)
		if keep > n {
			return nil
		}
		due = due[n-1:]
	}
	in := mergeDue(len(due), func(i int) *Input { return &due[i].in })
	in.IntendedTick = due[0].tick
	for _, q := range due {
		if q.tick < t {
			s.stats.InputsLate++
		}
	}
	s.stats.InputsApplied += uint64(len(due))
	c.origin = c.origin[:0]
	c.clamped = false
	for _, q := range due {
		if q.clamped {
			c.clamped, c.clampTick = true, t
		}
		for _, a := range q.in.Actions {
			c.origin = append(c.origin, actionOrigin{action: a.Sequence, input: q.in.Sequence})
		}
	}
	c.appliedSeq, c.appliedTick = in.Sequence, t
	c.applied = &in
	return c.applied
}

// publish numbers a game event, ties it to the input that caused it and
// records interactions.
func (s *Server) publish(g *GameEvent, t uint64) Event {
	e := Event{ID: s.nextEvID, Tick: t, GameEvent: *g}
	s.nextEvID++
	s.stats.Events++
	if c := s.client(g.Player); c != nil && c.applied != nil && g.ActionSeq != 0 {
		for _, o := range c.origin {
			if o.action == g.ActionSeq {
				e.InputSeq = o.input
			}
		}
	}
	if g.Target != 0 {
		for _, c := range s.clients {
			if id, ok := s.game.PlayerEntity(c.id); ok && id == g.Target && (c.id != g.Player || g.ActionSeq == 0) {
				c.interacted = t
			}
		}
	}
	return e
}
