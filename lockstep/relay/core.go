package relay

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// Errors returned by Step and New. Test with errors.Is.
var (
	ErrConfig        = errors.New("relay: invalid configuration")
	ErrUnknownPlayer = errors.New("relay: unknown player")
	ErrRemoved       = errors.New("relay: player has been removed")
	ErrPhase         = errors.New("relay: message not expected in this phase")
	ErrTick          = errors.New("relay: tick out of range")
	ErrDuplicate     = errors.New("relay: duplicate message")
	ErrBadPong       = errors.New("relay: calibration pong matches no ping")
	ErrBadReveal     = errors.New("relay: seed reveal does not open its commitment")
	ErrUnexpected    = errors.New("relay: message type not sent to a relay")
)

// Phase is the stage of the match.
type Phase uint8

// Match phases, in order.
const (
	PhaseCalibrating Phase = iota // ping exchange while loading
	PhaseCommitting               // collecting seed commitments
	PhaseRevealing                // collecting seed reveals
	PhasePlaying                  // ticks
	PhaseEnded                    // every player has left
)

func (p Phase) String() string {
	return [...]string{"calibrating", "committing", "revealing", "playing", "ended"}[p]
}

// Envelope is one message to send: to one player, or with Broadcast to
// every player not yet removed.
type Envelope struct {
	To        protocol.PlayerID
	Broadcast bool
	Msg       msg.Message
}

// Ready is what the core has produced since the last Advance: messages to
// send and events to record. Its slices and messages stay valid until
// Advance.
type Ready struct {
	Messages []Envelope
	Events   []Event
}

// Core is the relay of one match as a pure state machine. It never reads a
// clock, starts a goroutine or touches a socket: the embedder feeds it
// decoded messages with Step and the passage of time with Tick, sends what
// Ready returns, calls Advance, and calls Tick again at NextDeadline.
//
// Every method takes now, the relay's monotonic clock as a duration since
// an epoch of the embedder's choosing (time.Since(epoch) in a server, a
// virtual clock in tests). A now earlier than one seen before is taken as
// the latest one. Messages carry relay times in microseconds of the same
// clock.
//
// A Core is not safe for concurrent use.
type Core struct {
	cfg      Config
	now      time.Duration
	phase    Phase
	players  []*player
	timeline timeline
	deadline time.Duration
	runAhead uint8
	qos      QosAdaptationState
	cal      *calibrator
	seed     seedExchange
	sync     syncState
	rejoin   rejoinState
	frameLog frameLog
	host     hostStall
	rng      *mrand.ChaCha8
	removals []msg.Removal // scheduled, not yet in effect
	batch    Batch
	gameSeed uint64     // the agreed seed, once playing
	walk     desyncWalk // the desync walk under way, if any

	out       []Envelope
	events    []Event
	frames    pool[msg.TickFrame]
	feedbacks pool[msg.TimingFeedback]
	taken     readyMark // what the last Ready handed out
}

// readyMark is how much output a Ready handed out: its messages and
// events, and the pooled messages among them.
type readyMark struct{ messages, events, frames, feedbacks int }

// New returns the core of a match between players, starting calibration
// at now.
func New(cfg Config, players []protocol.PlayerID, now time.Duration) (*Core, error) {
	cfg = cfg.withDefaults()
	if cfg.DebugLevel > msg.MaxDebugLevel {
		return nil, fmt.Errorf("%w: debug level %d (0..%d)", ErrConfig, cfg.DebugLevel, msg.MaxDebugLevel)
	}
	if len(players) == 0 || len(players) > MaxPlayers {
		return nil, fmt.Errorf("%w: %d players (1..%d)", ErrConfig, len(players), MaxPlayers)
	}
	if time.Second/time.Duration(cfg.TickRate) <= cfg.SkewBudget {
		return nil, fmt.Errorf("%w: tick rate %d too high", ErrConfig, cfg.TickRate)
	}
	prof := cfg.Profile
	if prof.DeadlineMin > prof.DeadlineMax || prof.RunAheadMin > prof.RunAheadMax || prof.EWMAAlphaQ15 > 32768 {
		return nil, fmt.Errorf("%w: inconsistent QoS profile", ErrConfig)
	}
	src := cfg.Rand
	if src == nil {
		src = rand.Reader
	}
	var key [32]byte
	if _, err := io.ReadFull(src, key[:]); err != nil {
		return nil, fmt.Errorf("relay: reading the random source: %w", err)
	}
	c := &Core{cfg: cfg, now: now, rng: mrand.NewChaCha8(key)}
	for i, id := range players {
		if slices.Contains(players[:i], id) {
			return nil, fmt.Errorf("%w: player %d twice", ErrConfig, id)
		}
		c.players = append(c.players, newPlayer(id, i, cfg, now))
	}
	interval := time.Second / time.Duration(cfg.TickRate)
	c.timeline = newTimeline(interval, prof.DeadlineMax, len(players))
	c.deadline, c.runAhead = prof.DeadlineMax, prof.RunAheadMax
	c.cal = newCalibrator(now, len(players), cfg.Calibration.Pings)
	c.seed = newSeedExchange(len(players))
	c.sync = newSyncState(len(players))
	if cfg.DebugLevel > 0 {
		c.broadcast(&msg.DebugLevel{Level: cfg.DebugLevel})
	}
	c.advance(now)
	return c, nil
}

// Phase is the match's current phase.
func (c *Core) Phase() Phase { return c.phase }

// Deadline is the tick deadline: how long after a tick window closes the
// relay waits for its orders.
func (c *Core) Deadline() time.Duration { return c.deadline }

// RunAhead is the shared run-ahead in ticks.
func (c *Core) RunAhead() uint8 { return c.runAhead }

// NextTick is the next tick to be broadcast.
func (c *Core) NextTick() uint64 { return c.timeline.next }

// TickInterval is the length of a tick window.
func (c *Core) TickInterval() time.Duration { return c.timeline.interval }

// Start is the relay time at which tick 0's window opens; valid once
// playing.
func (c *Core) Start() time.Duration { return c.timeline.start }

// QosState is the in-match adaptation state.
func (c *Core) QosState() QosAdaptationState { return c.qos }

// Player returns a snapshot of a player's state.
func (c *Core) Player(id protocol.PlayerID) (PlayerState, bool) {
	if p := c.player(id); p != nil {
		return p.state, true
	}
	return PlayerState{}, false
}

func (c *Core) player(id protocol.PlayerID) *player {
	for _, p := range c.players {
		if p.state.ID == id {
			return p
		}
	}
	return nil
}

// Step feeds one decoded message from a player.
func (c *Core) Step(now time.Duration, from protocol.PlayerID, m msg.Message) error {
	c.advance(now)
	p := c.player(from)
	if p == nil {
		return fmt.Errorf("%w: %d", ErrUnknownPlayer, from)
	}
	if p.state.Status == StatusRemoved {
		return fmt.Errorf("%w: %d", ErrRemoved, from)
	}
	p.state.LastHeard = c.now
	switch m := m.(type) {
	case *msg.OrderSubmit:
		if p.state.Status == StatusAway || p.state.Status == StatusRejoining {
			return fmt.Errorf("%w: OrderSubmit from a player %v", ErrPhase, p.state.Status)
		}
		return c.onSubmit(p, m)
	case *msg.SyncHash:
		c.snapshotHash(p, m)
		return c.onSyncHash(p, m)
	case *msg.SnapshotChunk, *msg.SnapshotDigest, *msg.SnapshotVerdict, *msg.CaughtUp:
		return c.onRejoinMessage(p, m)
	case *msg.ClientMetrics:
		p.state.Metrics.updateFromClient(m)
		return nil
	case *msg.CalibrationPong:
		return c.onPong(p, m)
	case *msg.SeedCommit:
		return c.onCommit(p, m)
	case *msg.SeedReveal:
		return c.onReveal(p, m)
	case *msg.DesyncDebugReport:
		return c.onWalkAnswer(p, m, m.Tick)
	case *msg.MerkleNodes:
		return c.onWalkAnswer(p, m, m.Tick)
	case *msg.LeafEntities:
		return c.onWalkAnswer(p, m, m.Tick)
	}
	return fmt.Errorf("%w: %T", ErrUnexpected, m)
}

// Heard tells the core that a player's connection showed life (a
// transport keepalive) without a message for the core.
func (c *Core) Heard(now time.Duration, id protocol.PlayerID) {
	c.advance(now)
	if p := c.player(id); p != nil && p.state.Status != StatusRemoved {
		p.state.LastHeard = c.now
	}
}

// Leave removes a player that quit or whose connection closed: during play
// at a scheduled tick, before it at once.
func (c *Core) Leave(now time.Duration, id protocol.PlayerID) {
	c.advance(now)
	if p := c.player(id); p != nil {
		c.scheduleRemoval(p, msg.ReasonLeft)
	}
}

// Tick advances the core's clock to now: it sends calibration pings,
// enforces the seed exchange's timeouts, broadcasts every tick whose
// deadline has passed, and removes silent or frozen players.
func (c *Core) Tick(now time.Duration) { c.advance(now) }

func (c *Core) advance(now time.Duration) {
	c.host.resuming = c.detectHostStall(now)
	c.now = max(c.now, now)
	switch c.phase {
	case PhaseCalibrating:
		c.calibrationTick()
	case PhaseCommitting, PhaseRevealing:
		if c.now >= c.seed.deadline {
			c.seedTimeout()
		}
	case PhasePlaying:
		for c.phase == PhasePlaying && c.now >= c.due(c.timeline.next) {
			c.finalize(c.timeline.next)
		}
	}
	c.host.resuming = false
	c.checkLiveness()
	c.rejoinTick()
	c.walkTimeout()
}

// NextDeadline is when the core next needs Tick, if ever.
func (c *Core) NextDeadline() (time.Duration, bool) {
	var next time.Duration
	have := false
	at := func(t time.Duration) {
		if !have || t < next {
			next, have = t, true
		}
	}
	switch c.phase {
	case PhaseCalibrating:
		at(c.calibrationDeadline())
	case PhaseCommitting, PhaseRevealing:
		at(c.seed.deadline)
	case PhasePlaying:
		at(c.due(c.timeline.next))
	case PhaseEnded:
		return 0, false
	}
	c.rejoinDeadline(at)
	if t, ok := c.walkDeadline(); ok {
		at(t)
	}
	for _, p := range c.players {
		if p.state.Status != StatusActive || c.phase != PhasePlaying {
			continue
		}
		at(p.state.LastHeard + c.cfg.HeartbeatTimeout)
		// A frozen deadline already passed belongs to a player that is
		// silent (the heartbeat covers it) or frozen with (nearly) everyone
		// else, whose removal waits a heartbeat timeout more.
		if t, ok := c.frozenAt(p); ok && t > c.now {
			at(t)
		} else if ok && t+c.cfg.HeartbeatTimeout > c.now {
			at(t + c.cfg.HeartbeatTimeout)
		}
	}
	return max(next, c.now), have
}

// HasReady reports whether Ready has anything.
func (c *Core) HasReady() bool { return len(c.out) > 0 || len(c.events) > 0 }

// Ready returns the messages and events produced since the last Advance.
func (c *Core) Ready() Ready {
	c.taken = readyMark{len(c.out), len(c.events), c.frames.used, c.feedbacks.used}
	return Ready{Messages: c.out, Events: c.events}
}

// Advance acknowledges the last Ready: its messages have been sent and its
// events recorded, and the core may reuse their memory. It releases only
// what that Ready held (raft's contract): output produced after Ready,
// say by a Leave while the Ready's messages were being sent, stays for
// the next Ready. Advance without a Ready releases nothing.
func (c *Core) Advance() {
	t := c.taken
	c.taken = readyMark{}
	c.out = release(c.out, t.messages)
	c.events = release(c.events, t.events)
	c.frames.release(t.frames)
	c.feedbacks.release(t.feedbacks)
}

// release drops the first n elements of s, keeping the rest in order.
func release[T any](s []T, n int) []T {
	k := copy(s, s[n:])
	clear(s[k:])
	return s[:k]
}

func (c *Core) send(to protocol.PlayerID, m msg.Message) {
	c.out = append(c.out, Envelope{To: to, Msg: m})
}

func (c *Core) broadcast(m msg.Message) {
	c.out = append(c.out, Envelope{Broadcast: true, Msg: m})
}

func (c *Core) emit(e Event) { c.events = append(c.events, e) }

// active calls f for every player still in the match and not leaving.
func (c *Core) active(f func(p *player)) {
	for _, p := range c.players {
		if p.state.Status == StatusActive {
			f(p)
		}
	}
}

// pool recycles messages between Advance calls so the steady state does
// not allocate.
type pool[T any] struct {
	items []*T
	used  int
}

func (p *pool[T]) get() *T {
	if p.used == len(p.items) {
		p.items = append(p.items, new(T))
	}
	t := p.items[p.used]
	p.used++
	return t
}

// release returns the first n messages handed out to the pool; those
// handed out after them stay in use and become the first.
func (p *pool[T]) release(n int) {
	if n < p.used { // rotate left by n without allocating
		slices.Reverse(p.items[:n])
		slices.Reverse(p.items[n:p.used])
		slices.Reverse(p.items[:p.used])
	}
	p.used -= n
}

func durUs(d time.Duration) uint64 { return uint64(max(d, 0) / time.Microsecond) }
