package fogauth

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// A harness runs a Room and its Clients over a simulated network in virtual
// time: StateUpdates and Acks travel unreliable (lost with probability
// loss, delayed by latency plus up to jitter; with reorder an older
// StateUpdate may arrive after a newer one, otherwise it is dropped then;
// each duplicated with probability dup), everything else reliable-ordered
// (a lost transmission arrives one rto later, still in order).
type harness struct {
	t       testing.TB
	room    *Room
	now     time.Duration
	rng     sim.SplitMix64
	loss    uint64 // per mille
	dup     uint64 // per mille
	reorder bool
	latency time.Duration
	jitter  time.Duration
	clients []*hclient
	history []truthAt
	// check, if set, sees every StateUpdate the room sends, as it is sent.
	check func(c *hclient, data []byte)
	// onPlay, if set, runs each time a client gets its turn to play,
	// before its bot.
	onPlay func(c *hclient)
	// received, if set, sees every message a client applied, after it
	// applied it.
	received func(c *hclient, data []byte)
}

const rto = 200 * time.Millisecond

type netMsg struct {
	at       time.Duration
	seq      uint64
	reliable bool
	data     []byte
}

type hclient struct {
	id        ClientID
	player    protocol.PlayerID
	cl        *Client
	bot       *bot.Bot
	botTick   uint64
	flushTick uint64
	down      []netMsg
	up        []netMsg
	seq       uint64 // unreliable messages sent to the client
	lastSeq   uint64 // newest unreliable message delivered
	relDown   time.Duration
	relUp     time.Duration
	held      bool // transcripts: messages wait for deliver

	// max_stale bookkeeping: per entity, the tick its copy first differed
	// from the truth.
	staleSince map[protocol.EntityID]uint64
	maxStale   uint64
}

func newHarness(t testing.TB, cfg Config, md sim.MapData, rules sim.Config, seed uint64) *harness {
	t.Helper()
	r, err := newRTSRoom(cfg, md, rules, seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, room: r, rng: sim.SplitMix64{S: seed}, latency: 20 * time.Millisecond}
}

func scenarioHarness(t testing.TB, cfg Config, players, units int, seed uint64) *harness {
	t.Helper()
	md, rules, err := scenario.Generate(scenario.Params{Players: players, UnitsPerPlayer: units, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, cfg, md, rules, seed)
}

// join seats a client; withBot gives it a bot playing from its partial
// world.
func (h *harness) join(id ClientID, player protocol.PlayerID, withBot bool) *hclient {
	h.t.Helper()
	if err := h.room.AddClient(id, player); err != nil {
		h.t.Fatal(err)
	}
	c := &hclient{id: id, player: player, cl: NewClient(player), staleSince: map[protocol.EntityID]uint64{}}
	if withBot && player != 0 {
		c.bot = bot.New(player, uint64(id))
	}
	h.clients = slices.DeleteFunc(h.clients, func(o *hclient) bool { return o.id == id || (player != 0 && o.player == player) })
	h.clients = append(h.clients, c)
	return c
}

func (h *harness) delay() time.Duration {
	d := h.latency
	if h.jitter > 0 {
		d += time.Duration(h.rng.Intn(uint64(h.jitter)))
	}
	return d
}

func (h *harness) lost() bool { return h.loss > 0 && h.rng.Intn(1000) < h.loss }

func (h *harness) duplicated() bool { return h.dup > 0 && h.rng.Intn(1000) < h.dup }

func insert(q []netMsg, m netMsg) []netMsg {
	i := len(q)
	for i > 0 && q[i-1].at > m.at {
		i--
	}
	return slices.Insert(q, i, m)
}

// send schedules the room's output.
func (h *harness) send() {
	if !h.room.HasReady() {
		return
	}
	for _, e := range h.room.Ready().Messages {
		c := h.clientOrNil(e.To)
		if c == nil {
			continue
		}
		data := slices.Clone(e.Data)
		if !e.Reliable && h.check != nil {
			h.check(c, data)
		}
		if e.Reliable {
			at := max(h.now+h.delay(), c.relDown)
			if h.lost() {
				at += rto
			}
			c.relDown = at
			c.down = insert(c.down, netMsg{at: at, reliable: true, data: data})
			continue
		}
		c.seq++
		if h.lost() {
			continue
		}
		c.down = insert(c.down, netMsg{at: h.now + h.delay(), seq: c.seq, data: data})
		if h.duplicated() {
			c.down = insert(c.down, netMsg{at: h.now + h.delay() + h.delay(), seq: c.seq, data: data})
		}
	}
	h.room.Advance()
}

func (h *harness) clientOrNil(id ClientID) *hclient {
	for _, c := range h.clients {
		if c.id == id {
			return c
		}
	}
	return nil
}

// deliverDown hands a client the messages due (all of them with force).
func (h *harness) deliverDown(c *hclient, force bool) {
	n := 0
	for _, m := range c.down {
		if !force && m.at > h.now {
			break
		}
		n++
		if !m.reliable && !h.reorder {
			if m.seq < c.lastSeq {
				continue // sequenced: older than one delivered
			}
			c.lastSeq = m.seq
		}
		if err := c.cl.Receive(m.data); err != nil {
			h.t.Fatalf("client %d: %v", c.id, err)
		}
		if h.received != nil {
			h.received(c, m.data)
		}
	}
	c.down = c.down[n:]
}

// play lets a client's bot decide on a new tick and queues the client's
// acks and orders.
func (h *harness) play(c *hclient) {
	if h.onPlay != nil {
		h.onPlay(c)
	}
	w := c.cl.World()
	if c.bot != nil && w.Tick() > c.botTick && !h.room.Finished() {
		c.botTick = w.Tick()
		for _, o := range c.bot.Orders(botWorld(h.room, w), nil) {
			c.cl.SubmitOrder(o)
		}
	}
	if w.Tick() == c.flushTick {
		return // the shell flushes once per tick received
	}
	c.flushTick = w.Tick()
	msgs, ack, err := c.cl.Flush()
	if err != nil {
		h.t.Fatalf("client %d flush: %v", c.id, err)
	}
	if ack != nil && !h.lost() {
		c.up = insert(c.up, netMsg{at: h.now + h.delay(), data: slices.Clone(ack)})
		if h.duplicated() {
			c.up = insert(c.up, netMsg{at: h.now + h.delay() + h.delay(), data: slices.Clone(ack)})
		}
	}
	for _, m := range msgs {
		at := max(h.now+h.delay(), c.relUp)
		if h.lost() {
			at += rto
		}
		c.relUp = at
		c.up = insert(c.up, netMsg{at: at, reliable: true, data: slices.Clone(m)})
	}
}

func (h *harness) deliverUp(c *hclient, force bool) {
	n := 0
	for _, m := range c.up {
		if !force && m.at > h.now {
			break
		}
		n++
		if err := h.room.Step(c.id, m.data); err != nil {
			h.t.Fatalf("room step from %d: %v", c.id, err)
		}
	}
	c.up = c.up[n:]
}

// step advances virtual time by 1 ms.
func (h *harness) step() {
	h.now += time.Millisecond
	for _, c := range h.clients {
		if c.held {
			continue
		}
		h.deliverDown(c, false)
		h.play(c)
		h.deliverUp(c, false)
	}
	if h.room.Due(h.now) {
		if err := h.room.RunDue(h.now); err != nil {
			h.t.Fatal(err)
		}
		h.send()
		h.trackStale()
	}
}

// runTicks runs until n more ticks have been published.
func (h *harness) runTicks(n int) {
	end := h.room.Tick() + uint64(n)
	for h.room.Tick() < end {
		h.step()
	}
}

// truthAt is the server's truth at one tick: what each client saw, as
// its wire names it (Room.View).
type truthAt struct {
	tick uint64
	vis  map[ClientID][]sim.EntityState
}

const historyTicks = 256

// trackStale measures, per client, how many ticks in a row a visible
// entity's copy differed from the server's truth at the tick the client
// has reached (so latency alone is not staleness; loss and the budget
// are).
func (h *harness) trackStale() {
	tick := h.room.Tick()
	if h.history == nil {
		h.history = make([]truthAt, historyTicks)
	}
	at := &h.history[tick%historyTicks]
	at.tick = tick
	if at.vis == nil {
		at.vis = map[ClientID][]sim.EntityState{}
	}
	for _, c := range h.clients {
		at.vis[c.id] = h.room.View(c.id, at.vis[c.id][:0])
	}
	for _, c := range h.clients {
		w := c.cl.World()
		past := &h.history[w.Tick()%historyTicks]
		if past.tick != w.Tick() || w.Tick() == 0 {
			continue
		}
		for _, truth := range past.vis[c.id] {
			id := truth.ID
			e, ok := w.Entity(id)
			if ok && e.EntityState == truth {
				delete(c.staleSince, id)
				continue
			}
			since, seen := c.staleSince[id]
			if !seen {
				c.staleSince[id] = tick
				since = tick
			}
			c.maxStale = max(c.maxStale, tick-since)
		}
		for id := range c.staleSince {
			if _, ok := slices.BinarySearchFunc(past.vis[c.id], id, byID); !ok {
				delete(c.staleSince, id) // out of sight: nothing to be stale about
			}
		}
	}
}

// finish stops the simulation and runs until every client has converged
// for a few ticks in a row (at most limit ticks).
func (h *harness) finish(limit int) int {
	h.room.Finish()
	calm := 0
	for n := 0; n < limit; n++ {
		h.runTicks(1)
		all := true
		for _, c := range h.clients {
			all = all && h.room.Converged(c.id)
		}
		if all {
			calm++
		} else {
			calm = 0
		}
		if calm == 10 {
			return n
		}
	}
	h.t.Fatalf("clients did not converge within %d ticks", limit)
	return limit
}

// inconsistency compares a client's partial world with the server's truth
// for what it sees (as its wire names it), entity by entity and field by
// field.
func (h *harness) inconsistency(c *hclient) error {
	vis := h.room.View(c.id, nil)
	w := c.cl.World()
	if w.Len() != len(vis) {
		return fmt.Errorf("client %d holds %d entities, sees %d", c.id, w.Len(), len(vis))
	}
	for _, truth := range vis {
		e, ok := w.Entity(truth.ID)
		if !ok {
			return fmt.Errorf("client %d lacks visible entity %d", c.id, truth.ID)
		}
		if e.EntityState != truth {
			return fmt.Errorf("client %d entity %d: %+v, truth %+v", c.id, truth.ID, e.EntityState, truth)
		}
	}
	return nil
}

func byID(e sim.EntityState, id protocol.EntityID) int { return cmp.Compare(e.ID, id) }
