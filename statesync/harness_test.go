package statesync_test

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/hostile"
	"github.com/tickwire/tickwire/statesync/msg"
)

// room is an in-process state-sync room in virtual time: one server core,
// client cores with test engines, and a network that carries every
// message as encoded bytes with a seeded delay and loss.
type room struct {
	t       testing.TB
	now     time.Duration
	srv     *statesync.Server
	clients map[uint32]*player
	queue   deliveries
	seq     int
	rng     *rand.Rand
	latency time.Duration
	jitter  time.Duration
	loss    float64 // of client-to-server datagrams other than leaves and entity data
	target  int     // entities the engines aim for
	// cut clients are on the other side of a network split: nothing
	// reaches them or comes from them.
	cut map[uint32]bool

	upBytes, downBytes map[uint32]int
	serverEvents       []statesync.Event
	clientEvents       map[uint32][]statesync.ClientEvent
	lieAbout           map[uint32]bool // clients that send forged partitions
	forgeState         map[uint32]bool // clients that send a forged full-state partition
	hostile            map[uint32]hostile.Tactic
	lies               map[uint32]int // what each hostile client sent that an honest one would not
	injectDelay        time.Duration  // added to a hostile client's own messages
	fullStates         map[uint32]int // FULL_STATE messages sent to each client
	tickCPU            time.Duration
	// transcript, when not nil, records every call into the server.
	transcript *[]serverOp
}

// serverOp is one call into the server core, for replay in benchmarks.
type serverOp struct {
	kind byte // 'j' join, 'l' leave, 's' step, 't' tick
	at   time.Duration
	id   uint32
	b    []byte
}

func (r *room) note(op serverOp) {
	if r.transcript != nil {
		*r.transcript = append(*r.transcript, op)
	}
}

type player struct {
	id uint32
	e  *testEngine
	c  *statesync.Client
}

type delivery struct {
	at   time.Duration
	seq  int
	to   uint32 // 0: the server
	from uint32
	b    []byte
}

type deliveries []delivery

func (d deliveries) Len() int { return len(d) }
func (d deliveries) Less(i, j int) bool {
	return d[i].at < d[j].at || d[i].at == d[j].at && d[i].seq < d[j].seq
}
func (d deliveries) Swap(i, j int) { d[i], d[j] = d[j], d[i] }
func (d *deliveries) Push(x any)   { *d = append(*d, x.(delivery)) }
func (d *deliveries) Pop() any {
	old := *d
	x := old[len(old)-1]
	*d = old[:len(old)-1]
	return x
}

func newRoom(t testing.TB, seed uint64, cfg statesync.Config, target int) *room {
	return &room{
		t: t, srv: statesync.NewServer(cfg, 0), clients: map[uint32]*player{},
		rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), latency: 20 * time.Millisecond, jitter: 10 * time.Millisecond,
		target: target, cut: map[uint32]bool{}, upBytes: map[uint32]int{}, downBytes: map[uint32]int{},
		clientEvents: map[uint32][]statesync.ClientEvent{}, lieAbout: map[uint32]bool{}, forgeState: map[uint32]bool{},
		hostile: map[uint32]hostile.Tactic{}, lies: map[uint32]int{}, fullStates: map[uint32]int{},
	}
}

func (r *room) join(id uint32) {
	p := &player{id: id, e: newTestEngine(r.target)}
	p.c = statesync.NewClient(statesync.ClientConfig{}, p.e)
	r.clients[id] = p
	r.note(serverOp{kind: 'j', at: r.now, id: id})
	if err := r.srv.Join(r.now, id); err != nil {
		r.t.Fatal(err)
	}
	r.flushServer()
}

func (r *room) leave(id uint32) {
	delete(r.clients, id)
	r.note(serverOp{kind: 'l', at: r.now, id: id})
	r.srv.Leave(r.now, id)
	r.flushServer()
}

func (r *room) delay() time.Duration {
	return r.latency + time.Duration(r.rng.Int64N(int64(r.jitter)+1))
}

func (r *room) push(d delivery) {
	r.seq++
	d.seq = r.seq
	heap.Push(&r.queue, d)
}

func (r *room) flushServer() {
	for r.srv.HasReady() {
		rd := r.srv.Ready()
		for _, env := range rd.Messages {
			b, err := msg.Append(nil, env.Msg)
			if err != nil {
				r.t.Fatalf("encode %T: %v", env.Msg, err)
			}
			if env.Broadcast {
				for _, id := range r.ids() {
					r.sendDown(id, b)
				}
			} else if _, ok := r.clients[env.To]; ok {
				r.sendDown(env.To, b)
				if _, full := env.Msg.(*msg.FullState); full {
					r.fullStates[env.To]++
				}
			}
		}
		r.serverEvents = append(r.serverEvents, rd.Events...)
		r.srv.Advance(rd)
	}
}

func (r *room) sendDown(id uint32, b []byte) {
	if r.cut[id] {
		return
	}
	r.downBytes[id] += len(b)
	// Server-to-client messages travel in order on a reliable lane: the
	// same delay for all of one client's messages sent at one instant.
	r.push(delivery{at: r.now + r.latency, to: id, b: b})
}

func (r *room) flushClient(p *player) {
	liar := r.liar(p)
	for p.c.HasReady() {
		rd := p.c.Ready()
		for _, m := range rd.Messages {
			if liar != nil {
				if lie := liar.Rewrite(m); lie != m {
					m = lie
					r.lies[p.id]++
				}
			}
			if pd, ok := m.(*msg.PartitionData); ok && r.lieAbout[p.id] {
				m = forge(pd)
			}
			if ed, ok := m.(*msg.EntityData); ok && ed.Kind == msg.EntitiesFullPart && r.forgeState[p.id] {
				f := *ed
				f.Encoding, f.Data = msg.Raw, statesync.AppendEntity(nil, 1<<30, make([]byte, unitLen))
				m = &f
			}
			b, err := msg.Append(nil, m)
			if err != nil {
				r.t.Fatalf("encode %T: %v", m, err)
			}
			if r.cut[p.id] {
				continue
			}
			r.upBytes[p.id] += len(b)
			switch m.(type) {
			case *msg.StateHash, *msg.PartitionData, *msg.Input:
				if r.rng.Float64() < r.loss {
					continue
				}
			}
			r.push(delivery{at: r.now + r.delay(), from: p.id, b: b})
		}
		r.clientEvents[p.id] = append(r.clientEvents[p.id], rd.Events...)
		p.c.Advance(rd)
	}
}

// forge replaces a partition's created entities with made-up ones; the
// liar reports its true state hash, so only the partition's own hashes
// can give it away.
func forge(pd *msg.PartitionData) *msg.PartitionData {
	f := *pd
	d := statesync.Delta{Frame: pd.Frame, Created: statesync.AppendEntity(nil, 999999, make([]byte, unitLen))}
	f.Encoding, f.Data = msg.Raw, statesync.AppendDelta(nil, &d)
	return &f
}

// run advances virtual time to until.
func (r *room) run(until time.Duration) {
	stuck, last := 0, r.now
	for {
		if stuck++; r.now != last {
			stuck, last = 0, r.now
		} else if stuck > 1_000_000 {
			r.t.Fatalf("no progress at %v: deadline %v queue %d", r.now, r.srv.NextDeadline(), len(r.queue))
		}
		next := r.srv.NextDeadline()
		if len(r.queue) > 0 && r.queue[0].at < next {
			next = r.queue[0].at
		}
		if next > until {
			r.now = until
			return
		}
		r.now = max(r.now, next)
		if len(r.queue) > 0 && r.queue[0].at <= r.now {
			d := heap.Pop(&r.queue).(delivery)
			r.deliver(d)
			continue
		}
		start := time.Now()
		r.note(serverOp{kind: 't', at: r.now})
		r.srv.Tick(r.now)
		r.tickCPU += time.Since(start)
		r.flushServer()
	}
}

func (r *room) deliver(d delivery) {
	m, err := msg.Parse(d.b)
	if err != nil {
		r.t.Fatalf("parse: %v", err)
	}
	if d.to == 0 {
		if _, ok := r.clients[d.from]; !ok {
			return
		}
		r.note(serverOp{kind: 's', at: r.now, id: d.from, b: d.b})
		if _, hello := m.(*msg.Hello); hello {
			_ = r.srv.Rejoin(r.now, d.from)
		} else {
			_ = r.srv.Step(r.now, d.from, m)
		}
		r.flushServer()
		return
	}
	p := r.clients[d.to]
	if p == nil {
		return
	}
	_ = p.c.Step(m)
	if tick, ok := m.(*msg.Tick); ok && r.hostile[p.id] != 0 {
		r.inject(r.liar(p), p.id, tick)
	}
	r.flushClient(p)
}

// frames runs n frames.
func (r *room) frames(n int) {
	r.run(r.now + time.Duration(n)*50*time.Millisecond)
}

// inSync reports whether every running client has the hash most of them
// have, and returns the disagreeing ones.
func (r *room) inSync() (bool, []uint32) {
	count := map[[2]uint32]int{}
	best, bestN := [2]uint32{}, 0
	for _, p := range r.clients {
		if !p.c.Running() {
			continue
		}
		k := [2]uint32{p.c.Frame(), p.c.Hash()}
		count[k]++
		if count[k] > bestN {
			best, bestN = k, count[k]
		}
	}
	var bad []uint32
	for id, p := range r.clients {
		if p.c.Running() && (p.c.Frame() == best[0] && p.c.Hash() != best[1]) {
			bad = append(bad, id)
		}
	}
	return len(bad) == 0, bad
}

func (r *room) events(kind statesync.EventKind) []statesync.Event {
	var out []statesync.Event
	for _, e := range r.serverEvents {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func durationFrames(n uint64) time.Duration { return time.Duration(max(n, 1)) }

// ids are the room's clients in ascending order, so that a run is the
// same every time.
func (r *room) ids() []uint32 {
	out := make([]uint32, 0, len(r.clients))
	for id := range r.clients {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
