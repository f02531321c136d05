package fogauth

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// Errors of Step and the client set-up. Test with errors.Is.
var (
	ErrUnknownClient = errors.New("fogauth: unknown client")
	ErrClientExists  = errors.New("fogauth: client id in use")
	ErrPlayer        = errors.New("fogauth: no such player")
)

// ClientID names one connection of the room, chosen by the embedder.
type ClientID uint32

// Envelope is one message to send to a client: a Rejection on the
// reliable-ordered lane, or a StateUpdate on the unreliable lane (which
// may lose, reorder and duplicate; see Client.Receive).
type Envelope struct {
	To       ClientID
	Reliable bool
	Data     []byte
}

// Ready is what the room produced since the last Advance. Its slices stay
// valid until Advance.
type Ready struct {
	Messages []Envelope
}

type envelopeRec struct {
	to         ClientID
	reliable   bool
	start, end int
}

// queuedOrder is an order waiting for the next tick.
type queuedOrder struct {
	from  *viewer
	order protocol.TimestampedOrder
}

// Room is one fog-authoritative game as a pure state machine. It hosts
// the authoritative game (Game) and holds, for every connected client, the
// state that client has acknowledged. It never reads a clock, starts a goroutine or touches a
// socket: the embedder feeds client messages with Step and time with
// RunDue (or Due, Simulate, Publish and EndTick when it times the phases),
// sends what Ready returns and calls Advance.
//
// A Room is not safe for concurrent use.
type Room struct {
	cfg      Config
	game     Game
	interval time.Duration
	next     time.Duration // deadline of the next tick
	tick     uint64        // tick of the StateUpdates being sent
	finished bool
	// lastTick is the last tick simulated (set by Finish): every
	// MatchEnd carries it.
	lastTick uint64
	// endTiming is what spectators' MatchEnds carry of the room's timing
	// (SetEndTiming).
	endTickP99Us, endCostP99Us uint32

	clients []*viewer
	queue   []queuedOrder
	done    []bool // per player (index = PlayerID): sent Done, or gave up

	// Scratch reused every tick.
	union   []uint64 // bitset of entity IDs visible to some player
	specVis []protocol.EntityID
	slots   []int32 // index in the simulation's entities by entity ID (indexEntities)
	valid   []protocol.TimestampedOrder
	givers  []*viewer // the client of each valid order
	ackBuf  []PartID
	grid    nearGrid
	sel     selector

	out     []envelopeRec
	arena   []byte
	ready   []Envelope
	endView []protocol.EntityState // scratch of MatchEnd
	stats   Stats
	waits   waits
}

// New starts a room at tick 0 hosting game, with its first tick due one
// interval after now. The game's simulation seed, if it has one, is
// secret: clients never simulate, nothing sends it, and a client that
// knew it could predict every roll of the simulation's RNG and, by
// matching the draws behind its own units, count the hidden ones. Draw it
// from crypto/rand, apart from any public map seed (fogserver's games
// do). The room installs its target filter in the game (SetTargetFilter).
func New(cfg Config, game Game, now time.Duration) (*Room, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if n := game.Players(); n < 1 || n > MaxPlayers {
		return nil, fmt.Errorf("%w: a game of %d players", ErrPlayer, n)
	}
	cfg = cfg.WithDefaults()
	r := &Room{
		cfg: cfg, game: game,
		interval: cfg.TickInterval(),
		done:     make([]bool, game.Players()+1),
		sel: selector{budget: cfg.BudgetBytes(), maxCount: cfg.MaxEntitiesPerUpdate,
			maxMsg: cfg.MaxMessageSize, bonus: uint64(max(cfg.StalenessBonus, 0))},
	}
	r.next = now + r.interval
	game.SetTargetFilter(r.targetSeen)
	return r, nil
}

// targetSeen is the game's target filter: a unit may keep or acquire only
// a target in a cell its player saw at the last Publish, so its visible
// behaviour (facing, chasing, firing) never traces an entity its player
// cannot see.
func (r *Room) targetSeen(owner protocol.PlayerID, target *protocol.EntityState) bool {
	x, y := cellOf(target.Pos)
	return r.game.CellVisible(owner, x, y)
}

// Game is the hosted game. Callers must not change it.
func (r *Room) Game() Game { return r.game }

// entity is the game's entity id now.
func (r *Room) entity(id protocol.EntityID) (protocol.EntityState, bool) {
	ents := r.game.Entities()
	i, ok := slices.BinarySearchFunc(ents, id, func(e protocol.EntityState, id protocol.EntityID) int { return cmp.Compare(e.ID, id) })
	if !ok {
		return protocol.EntityState{}, false
	}
	return ents[i], true
}

// Tick is the tick of the latest StateUpdates.
func (r *Room) Tick() uint64 { return r.tick }

// NextDeadline is when the next tick is due.
func (r *Room) NextDeadline() time.Duration { return r.next }

// Config is the room's configuration with defaults applied.
func (r *Room) Config() Config { return r.cfg }

// Finish stops the simulation: later ticks only keep sending, so every
// client converges on the final state, and each client gets its MatchEnd
// at the first tick at which it has acknowledged its whole final view
// (see Publish), on a schedule that depends only on its own view and its
// own acknowledgements; EndAll ends the rest. Orders waiting for the next tick,
// and any that come later, are refused (RejectFinished) at once: the
// embedder may end the match before another tick runs.
func (r *Room) Finish() {
	if !r.finished {
		r.lastTick = r.tick
	}
	r.finished = true
	for i := range r.queue {
		q := &r.queue[i]
		q.from.rejected.add(RejectFinished, q.order.Order.OrderKind())
	}
	clear(r.queue)
	r.queue = r.queue[:0]
	r.flushRejections(r.tick)
}

// AllDone reports whether every player of the match sent Done, from any
// of its connections. A player whose connection is gone (in its rejoin
// window) is not done until it comes back and says so, or its embedder
// gives its seat up (GiveUp).
func (r *Room) AllDone() bool {
	for p := 1; p <= r.game.Players(); p++ {
		if !r.done[p] {
			return false
		}
	}
	return true
}

// GiveUp counts player as done: it left for good (its rejoin window
// passed).
func (r *Room) GiveUp(player protocol.PlayerID) {
	if int(player) < len(r.done) {
		r.done[player] = true
	}
}

// Finished reports whether Finish was called.
func (r *Room) Finished() bool { return r.finished }

// AddClient seats a client: a player in 1..Players, or a spectator with
// player 0. A player's earlier client, if any, is replaced (reconnection).
// The client starts from an empty visibility state, so its next
// StateUpdates carry Enters for everything it sees, spread over ticks by
// the budget.
func (r *Room) AddClient(id ClientID, player protocol.PlayerID) error {
	if int(player) > r.game.Players() {
		return fmt.Errorf("%w: %d", ErrPlayer, player)
	}
	if r.client(id) != nil {
		return fmt.Errorf("%w: %d", ErrClientExists, id)
	}
	if player != 0 {
		for _, c := range r.clients {
			if c.player == player {
				r.RemoveClient(c.id)
				break
			}
		}
	}
	v := &viewer{id: id, player: player}
	v.view.names.key = r.cfg.AliasKey
	r.clients = append(r.clients, v)
	return nil
}

// RemoveClient forgets a client and its queued orders.
func (r *Room) RemoveClient(id ClientID) {
	for i, c := range r.clients {
		if c.id != id {
			continue
		}
		r.clients = append(r.clients[:i], r.clients[i+1:]...)
		kept := r.queue[:0]
		for _, q := range r.queue {
			if q.from != c {
				kept = append(kept, q)
			}
		}
		clear(r.queue[len(kept):])
		r.queue = kept
		return
	}
}

func (r *Room) client(id ClientID) *viewer {
	for _, c := range r.clients {
		if c.id == id {
			return c
		}
	}
	return nil
}

// Step feeds one message from a client: Orders, an Ack or Done. It takes
// no now because nothing it does depends on time: orders wait for the
// next tick, an acknowledgement is counted in ticks (the room's tick) and
// Done is a flag. Time enters the room only where it matters, as an
// explicit now: New, Due, RunDue and EndTick (the core never reads the
// clock: internal/layering TestCoresReadNoClock).
func (r *Room) Step(from ClientID, data []byte) error {
	c := r.client(from)
	if c == nil {
		return fmt.Errorf("%w: %d", ErrUnknownClient, from)
	}
	if len(data) == 0 {
		return ErrTruncated
	}
	switch data[0] {
	case TypeOrders:
		return r.onOrders(c, data[1:])
	case TypeDone:
		if c.player != 0 {
			r.done[c.player] = true
		}
		return nil
	case TypeAck:
		parts, err := ParseAck(data, r.ackBuf)
		r.ackBuf = parts
		if err != nil {
			return err
		}
		for _, p := range parts {
			c.acknowledge(p, r.tick)
		}
		return nil
	}
	return fmt.Errorf("%w: 0x%02x", ErrMessageType, data[0])
}

// onOrders queues a client's orders for the next tick. The player is the
// client's, whatever the packet says. Every order that is not queued is
// counted in the next tick's Rejections: a spectator's packet (never
// decoded), a packet that does not decode, an order over the rate.
func (r *Room) onOrders(c *viewer, packet []byte) error {
	if c.player == 0 {
		c.rejected.add(RejectSpectator, 0)
		return nil
	}
	orders, err := c.decodeOrders(packet)
	if err != nil {
		c.rejected.add(RejectMalformed, 0)
		return err
	}
	if r.finished {
		for _, o := range orders {
			c.rejected.add(RejectFinished, o.Order.OrderKind())
		}
		r.flushRejections(r.tick)
		return nil
	}
	for _, o := range orders {
		o.Player = c.player
		if c.ordersThisTick >= r.cfg.MaxOrdersPerTick {
			c.rejected.add(RejectRate, o.Order.OrderKind())
			continue
		}
		c.ordersThisTick++
		r.queue = append(r.queue, queuedOrder{from: c, order: o})
	}
	return nil
}

// Due reports whether a tick is due at now.
func (r *Room) Due(now time.Duration) bool { return now >= r.next }

// RunDue runs a tick if one is due at now: Simulate, Publish, EndTick.
func (r *Room) RunDue(now time.Duration) error {
	if !r.Due(now) {
		return nil
	}
	err := r.Simulate()
	r.Publish()
	r.EndTick(now)
	return err
}

// Simulate validates the queued orders against what their player knows
// (see validate), applies the valid ones and ticks the simulation, then
// sends each client the Rejections of its refused orders, grouped (see
// rejections); after Finish it does nothing but refuse orders. An order
// valid against the player's knowledge that the simulation still refuses
// (an earlier order of the same tick spent the credits, or built on the
// cell) is refused with the simulation's reason: both depend only on the
// player's own state and on what it sees.
func (r *Room) Simulate() error {
	r.tick++
	r.valid, r.givers = r.valid[:0], r.givers[:0]
	for i := range r.queue {
		q := &r.queue[i]
		if r.finished {
			q.from.rejected.add(RejectFinished, q.order.Order.OrderKind())
			continue
		}
		kind := q.order.Order.OrderKind()
		o, v := r.validate(q.from, q.order.Order)
		if v != 0 {
			q.from.rejected.add(RejectReason(v), kind)
			continue
		}
		q.order.Order = o
		r.valid, r.givers = append(r.valid, q.order), append(r.givers, q.from)
		q.from.stats.OrdersApplied++
	}
	clear(r.queue)
	r.queue = r.queue[:0]
	for _, c := range r.clients {
		c.ordersThisTick = 0
	}
	var err error
	if !r.finished {
		err = r.game.Step(r.valid, r.refused)
		r.stats.SimTicks++
	}
	clear(r.valid)
	clear(r.givers)
	r.flushRejections(r.tick)
	return err
}

// refused counts an order the simulation refused against its client.
func (r *Room) refused(o *protocol.TimestampedOrder, v uint8) {
	for i := range r.valid {
		if &r.valid[i] == o {
			r.givers[i].rejected.add(RejectReason(v), o.Order.OrderKind())
			r.givers[i].stats.OrdersApplied--
			return
		}
	}
}

// EndTick schedules the next tick. When now is already past it, the ticks
// that cannot be run in time are skipped (and counted) instead of being
// run late one after another.
func (r *Room) EndTick(now time.Duration) {
	r.next += r.interval
	if now > r.next {
		skipped := (now - r.next) / r.interval
		r.next += r.interval * (skipped + 1)
		r.stats.SkippedTicks += uint64(skipped) + 1
	}
}

// HasReady reports whether Ready has messages.
func (r *Room) HasReady() bool { return len(r.out) > 0 }

// Ready returns the messages produced since the last Advance.
func (r *Room) Ready() Ready {
	r.ready = r.ready[:0]
	for _, o := range r.out {
		r.ready = append(r.ready, Envelope{To: o.to, Reliable: o.reliable, Data: r.arena[o.start:o.end:o.end]})
	}
	return Ready{Messages: r.ready}
}

// Advance releases what the last Ready held.
func (r *Room) Advance() {
	clear(r.ready)
	r.ready, r.out, r.arena = r.ready[:0], r.out[:0], r.arena[:0]
}
