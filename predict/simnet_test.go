package predict_test

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tickwire/tickwire/predict"
)

// impairment is one direction of a simulated path.
type impairment struct {
	delay, jitter time.Duration
	loss          float64
	// burst: every burstEvery, everything sent for burst is lost (the
	// reliable lane retransmits after it).
	burst, burstEvery time.Duration
}

// lost reports whether a message sent at now is lost.
func (l *link) lost(now time.Duration) bool {
	if l.imp.burstEvery > 0 && (now+l.phase)%l.imp.burstEvery < l.imp.burst {
		return true
	}
	return l.rng.Float64() < l.imp.loss
}

type packet struct {
	at   time.Duration
	n    uint64
	lane predict.Lane
	data []byte
}

// link is one direction of a simulated connection with the lane
// semantics of a tickwire transport: the reliable lane retransmits a lost
// message after a timeout and delivers in order; the sequenced lane drops
// lost messages and any older than one already delivered; the unreliable
// lane drops lost messages.
type link struct {
	imp          impairment
	rng          *rand.Rand
	queue        []packet
	n            uint64
	lastReliable time.Duration
	lastSeq      uint64
	bytes        uint64
	phase        time.Duration // offsets the bursts of the two directions
}

func (l *link) send(now time.Duration, lane predict.Lane, data []byte) {
	l.bytes += uint64(len(data))
	at := now + l.imp.delay
	if l.imp.jitter > 0 {
		at += time.Duration(l.rng.Int64N(int64(l.imp.jitter)))
	}
	lost := l.lost(now)
	switch lane {
	case predict.LaneReliable:
		for sent := now; lost; lost = l.lost(sent) {
			rto := 2*l.imp.delay + 20*time.Millisecond // retransmission timeout
			at += rto
			sent += rto
		}
		at = max(at, l.lastReliable)
		l.lastReliable = at
	default:
		if lost {
			return
		}
	}
	l.n++
	l.queue = append(l.queue, packet{at: at, n: l.n, lane: lane, data: slices.Clone(data)})
}

// due removes and returns the packets arrived by now, in arrival order.
func (l *link) due(now time.Duration) []packet {
	slices.SortStableFunc(l.queue, func(a, b packet) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return int(a.n) - int(b.n)
	})
	i := 0
	for i < len(l.queue) && l.queue[i].at <= now {
		i++
	}
	out := slices.Clone(l.queue[:i])
	l.queue = append(l.queue[:0], l.queue[i:]...)
	kept := out[:0]
	for _, p := range out {
		if p.lane == predict.LaneSequenced {
			if p.n < l.lastSeq {
				continue
			}
			l.lastSeq = p.n
		}
		kept = append(kept, p)
	}
	return kept
}

// simRoom is a Server and its clients over simulated links, in virtual
// time.
type simRoom struct {
	srv    *predict.Server
	events map[predict.PlayerID][]predict.Event // every event the server sent each player
	up     map[predict.PlayerID]*link
	down   map[predict.PlayerID]*link
	at     time.Duration
}

func newSimRoom(cfg predict.ServerConfig, g predict.Game) *simRoom {
	return &simRoom{srv: predict.NewServer(cfg, g), up: map[predict.PlayerID]*link{}, down: map[predict.PlayerID]*link{},
		events: map[predict.PlayerID][]predict.Event{}}
}

// connect joins player p over a path with imp in each direction.
func (r *simRoom) connect(now time.Duration, p predict.PlayerID, imp impairment, seed uint64) (*simConn, error) {
	r.up[p] = &link{imp: imp, rng: rand.New(rand.NewPCG(seed, 1))}
	r.down[p] = &link{imp: imp, rng: rand.New(rand.NewPCG(seed, 2)), phase: imp.burstEvery / 2}
	if err := r.srv.Join(now, p); err != nil {
		return nil, err
	}
	r.pump(now)
	return &simConn{room: r, p: p}, nil
}

// pump delivers the uplinks to the server, runs it to now and queues its
// messages on the downlinks.
func (r *simRoom) pump(now time.Duration) {
	if now < r.at {
		return
	}
	r.at = now
	ids := make([]predict.PlayerID, 0, len(r.up))
	for p := range r.up {
		ids = append(ids, p)
	}
	slices.Sort(ids)
	for _, p := range ids {
		for _, pk := range r.up[p].due(now) {
			r.srv.Receive(pk.at, p, pk.data)
		}
	}
	r.srv.Tick(now)
	for _, m := range r.srv.Ready().Messages {
		if typ, _ := predict.TypeOf(m.Data); typ == predict.TypeEvent {
			var e predict.EventMessage
			if e.Parse(m.Data) == nil {
				r.events[m.To] = append(r.events[m.To], e.Event)
			}
		}
		if d := r.down[m.To]; d != nil {
			d.send(now, m.Lane, m.Data)
		}
	}
	r.srv.Advance()
}

// simConn is a client's Network over the simulated links.
type simConn struct {
	room *simRoom
	p    predict.PlayerID
}

func (c *simConn) Send(now time.Duration, lane predict.Lane, msg []byte) error {
	c.room.up[c.p].send(now, lane, msg)
	return nil
}

func (c *simConn) Poll(now time.Duration, deliver func([]byte)) error {
	c.room.pump(now)
	for _, pk := range c.room.down[c.p].due(now) {
		deliver(pk.data)
	}
	return nil
}

func (c *simConn) Close() error { return nil }
